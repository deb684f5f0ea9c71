package kernel

import (
	"strings"
	"testing"
)

// The disk budget is 0 (unbounded) or at least MinJournalBytes, and one
// stored output at most the largest blob.
func TestRetentionLimitsChecked(t *testing.T) {
	for _, tc := range []struct {
		name      string
		max, out  int64
		wantError string
	}{
		{"defaults", 0, 0, ""},
		{"unbounded", 0, 1 << 20, ""},
		{"smallest budget", MinJournalBytes, 1 << 10, ""},
		{"budget too small", MinJournalBytes - 1, 0, "--journal-max-bytes"},
		{"largest output", 1 << 30, 64 << 20, ""},
		{"output too large", 1 << 30, 64<<20 + 1, "--journal-max-output"},
	} {
		l := DefaultLimits()
		l.JournalMaxBytes, l.JournalMaxOutput = tc.max, tc.out
		err := settleLimits(&l)
		switch {
		case tc.wantError == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantError != "" && (err == nil || !strings.Contains(err.Error(), tc.wantError)):
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.wantError)
		case tc.wantError == "" && tc.out == 0 && l.JournalMaxOutput != DefaultLimits().JournalMaxOutput:
			t.Errorf("%s: output bound %d, want the default", tc.name, l.JournalMaxOutput)
		}
	}
}
