package host

import (
	"strings"
	"testing"
)

// TestDedupEnv: runDirect (Linux) keeps the last of each KEY=, as os/exec does.
func TestDedupEnv(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"A=1", "A=1"},
		{"A=1,B=2", "A=1,B=2"},
		{"A=1,B=2,A=3", "B=2,A=3"},
		{"A=1,A=2,A=3", "A=3"},
		{"AB=1,A=2", "AB=1,A=2"},
		{"A,A=1", "A,A=1"},
	} {
		var in []string
		if tc.in != "" {
			in = strings.Split(tc.in, ",")
		}
		if got := strings.Join(dedupEnv(in), ","); got != tc.want {
			t.Errorf("dedupEnv(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
