package host

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/contain"
)

// sigBlk is the SigBlk mask of a /proc status file's text.
func sigBlk(t *testing.T, status string) uint64 {
	t.Helper()
	for line := range strings.Lines(status) {
		if v, ok := strings.CutPrefix(line, "SigBlk:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no SigBlk in %q", status)
	return 0
}

const sigchldBit = 1 << (17 - 1) // SIGCHLD is 17 on Linux

// TestRunChildSignalHeldOnlyWhileWaiting checks holdChildSignal's two
// promises, in and out of a scope: the command starts with SIGCHLD
// unblocked (a blocked mask would pass to it through exec), and the
// thread that forked and waited has SIGCHLD unblocked again once Run
// returns (the thread goes back to the runtime's pool).
func TestRunChildSignalHeldOnlyWhileWaiting(t *testing.T) {
	cat := prog(t, "cat")
	m := contain.New(contain.Config{Cgroups: true, Name: "shoal-hostsigchld"})
	t.Cleanup(m.Close)
	scope := m.NewScope()
	t.Cleanup(scope.Close)
	for _, h := range []Host{NewOS(AllowAll), NewOS(AllowAll, WithProcesses(scope), WithoutTerminal())} {
		// Locked, so that Run forks and waits on this very thread and
		// its mask can be read afterwards.
		runtime.LockOSThread()
		res, err := h.Run(context.Background(), &Spawn{Argv: []string{cat, "/proc/self/status"}})
		if err != nil {
			runtime.UnlockOSThread()
			t.Fatal(err)
		}
		self, err := os.ReadFile("/proc/thread-self/status")
		runtime.UnlockOSThread()
		if err != nil {
			t.Fatal(err)
		}
		if got := sigBlk(t, string(res.Stdout)); got&sigchldBit != 0 {
			t.Errorf("the command started with SIGCHLD blocked (SigBlk %x)", got)
		}
		if got := sigBlk(t, string(self)); got&sigchldBit != 0 {
			t.Errorf("the forking thread still blocks SIGCHLD after Run (SigBlk %x)", got)
		}
	}
}

// TestHoldChildSignal checks that the hold blocks SIGCHLD on the thread
// while held, and that a hold inside a hold leaves the outer one in force.
func TestHoldChildSignal(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	blocked := func() bool {
		b, err := os.ReadFile("/proc/thread-self/status")
		if err != nil {
			t.Fatal(err)
		}
		return sigBlk(t, string(b))&sigchldBit != 0
	}
	if blocked() {
		t.Fatal("SIGCHLD blocked before any hold")
	}
	outer := holdChildSignal()
	inner := holdChildSignal()
	if !blocked() {
		t.Fatal("SIGCHLD not blocked while held")
	}
	inner()
	if !blocked() {
		t.Fatal("the inner release unblocked the outer hold")
	}
	outer()
	if blocked() {
		t.Fatal("SIGCHLD still blocked after the release")
	}
}
