//go:build linux

package host

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/contain"
)

// TestWithoutTerminal: under WithoutTerminal a program leads a session of
// its own (so it has no controlling terminal and /dev/tty cannot be
// opened), through both spawn paths (with a stdin to feed, and without);
// without it, the program shares the caller's session in a group of its
// own. Either way the whole tree is still ended as one group.
func TestWithoutTerminal(t *testing.T) {
	sh := prog(t, "sh")
	// The program's pid, then the session and group from its stat line
	// (fields 6 and 5).
	script := `echo $$; cut -d' ' -f5,6 /proc/$$/stat`
	m := contain.New(contain.Config{})
	defer m.Close()
	for _, tc := range []struct {
		name       string
		opts       []Option
		ownSession bool
	}{
		{"kernel", []Option{WithoutTerminal(), WithProcesses(m.NewScope())}, true},
		{"repl", []Option{WithProcesses(m.NewScope())}, false},
	} {
		for _, stdin := range []bool{false, true} {
			s := &Spawn{Argv: []string{sh, "-c", script}}
			if stdin {
				s.Stdin = bytes.NewReader([]byte("x"))
			}
			res := run(t, NewOS(AllowAll, tc.opts...), context.Background(), s)
			f := strings.Fields(string(res.Stdout))
			if len(f) != 3 {
				t.Fatalf("%s: output %q", tc.name, res.Stdout)
			}
			pid, pgrp, sid := f[0], f[1], f[2]
			if pgrp != pid {
				t.Errorf("%s (stdin %v): group %s, want its own (%s)", tc.name, stdin, pgrp, pid)
			}
			if (sid == pid) != tc.ownSession {
				t.Errorf("%s (stdin %v): session %s for pid %s, want own session %v", tc.name, stdin, sid, pid, tc.ownSession)
			}
		}
	}
}
