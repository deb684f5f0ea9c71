package kernel

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestIdleFDsClamp: --idle-fds is cut to a quarter of RLIMIT_NOFILE, with
// a warning naming both; a bound below it is left alone; kernel.info's
// tunables report it by flag name.
func TestIdleFDsClamp(t *testing.T) {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		t.Skip(err)
	}
	if rl.Cur < 1024 {
		t.Skipf("RLIMIT_NOFILE %d leaves no room to lower it", rl.Cur)
	}
	l := DefaultLimits()
	if l.IdleFDs != DefaultIdleFDs {
		t.Fatalf("default --idle-fds %d, want %d", l.IdleFDs, DefaultIdleFDs)
	}
	if got := l.report()["idle-fds"]; got != DefaultIdleFDs {
		t.Errorf("tunables report idle-fds %d", got)
	}
	low := rl
	low.Cur = 800 // the test opens nothing while it is lowered
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	w := clampIdleFDs(&l)
	small := Limits{IdleFDs: 150}
	w2 := clampIdleFDs(&small)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	if l.IdleFDs != 200 || !strings.Contains(w, "--idle-fds 4096") || !strings.Contains(w, "using 200") {
		t.Errorf("under RLIMIT_NOFILE 800: --idle-fds %d, warning %q; want 200", l.IdleFDs, w)
	}
	if small.IdleFDs != 150 || w2 != "" {
		t.Errorf("a bound within the quarter was changed to %d (%q)", small.IdleFDs, w2)
	}
}
