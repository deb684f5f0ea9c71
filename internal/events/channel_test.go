package events

import (
	"strings"
	"testing"
)

func TestChannelNames(t *testing.T) {
	tests := []struct {
		name          string
		clientPublish bool
		valid         bool
		global        bool
	}{
		{"user.build", true, true, false},
		{"user.mytool.build.v1", true, true, false},
		{"user.a-b_C9", true, true, false},
		{"user.", false, false, false},
		{"user", false, false, false},
		{"user..x", false, false, false},
		{"user.x.", false, false, false},
		{"user.x y", false, false, false},
		{"user.é", false, false, false},
		{"user.x/y", false, false, false},
		{"user." + strings.Repeat("a", MaxChannelName), false, false, false},
		{"journal", false, true, true},
		{"approval", false, true, true},
		{"session.transcript", false, true, false},
		{"render", false, true, false},
		{"task.7", false, true, false},
		{"task.", false, false, false},
		{"task.x", false, false, false},
		{"reef", false, false, false},
		{"", false, false, false},
	}
	for _, tt := range tests {
		if got := CanClientPublish(tt.name); got != tt.clientPublish {
			t.Errorf("CanClientPublish(%q) = %v, want %v", tt.name, got, tt.clientPublish)
		}
		if got := ValidChannel(tt.name); got != tt.valid {
			t.Errorf("ValidChannel(%q) = %v, want %v", tt.name, got, tt.valid)
		}
		if got := IsGlobal(tt.name); got != tt.global {
			t.Errorf("IsGlobal(%q) = %v, want %v", tt.name, got, tt.global)
		}
	}
}

func TestTaskChannel(t *testing.T) {
	for id, want := range map[uint64]string{0: "task.0", 7: "task.7", 18446744073709551615: "task.18446744073709551615"} {
		if got := TaskChannel(id); got != want || !ValidChannel(got) {
			t.Errorf("TaskChannel(%d) = %q (valid %v), want %q", id, got, ValidChannel(got), want)
		}
	}
}
