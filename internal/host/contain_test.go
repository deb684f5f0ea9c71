package host

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/contain"
)

// escapedPid waits for the pid file the script writes, and for that
// process to have left its session, and returns the pid.
func escapedPid(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("pid file: %v", err)
		}
		if sid, err := sessionOf(pid); err == nil && sid == pid {
			return pid
		}
	}
	t.Fatalf("no escaped pid in %s", path)
	return 0
}

func sessionOf(pid int) (int, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	return strconv.Atoi(f[3])
}

// wantDead waits for pid to be gone (or a zombie).
func wantDead(t *testing.T, pid int, what string) {
	t.Helper()
	waitStates(t, []int{pid}, "gone after "+what, func(b byte) bool { return b == 0 || b == 'Z' })
}

// TestCancelEndsSetsidChild: cancelling a Run ends a child that moved to a
// session of its own, not only the process group.
func TestCancelEndsSetsidChild(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	sh := prog(t, "sh")
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := NewOS(AllowAll).Run(ctx, &Spawn{Argv: []string{sh, "-c", "setsid sleep 100 & echo $! > " + pidFile + "; sleep 100"}})
		done <- err
	}()
	pid := escapedPid(t, pidFile)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	wantDead(t, pid, "cancel")
}

// TestScopeCloseEndsBackgroundChild: a background child a finished command
// left behind runs on until the host's scope is closed.
func TestScopeCloseEndsBackgroundChild(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	m := contain.New(contain.Config{Cgroups: true, Name: "shoal-hosttest"})
	t.Cleanup(m.Close)
	scope := m.NewScope()
	sh := prog(t, "sh")
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The child still runs a second after the shell exits, so that the
	// poll that follows trees without a cgroup sees it.
	res, err := NewOS(AllowAll, WithProcesses(scope), WithWaitDelay(10*time.Millisecond)).Run(context.Background(),
		&Spawn{Argv: []string{sh, "-c", "setsid sleep 100 </dev/null >/dev/null 2>&1 & echo $! > " + pidFile + "; sleep 1"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status == nil || *res.Status != 0 {
		t.Fatalf("shell: %+v", res)
	}
	pid := escapedPid(t, pidFile)
	if st := procState(pid); st == 0 || st == 'Z' {
		t.Fatal("the background child is already gone")
	}
	scope.Close()
	wantDead(t, pid, "Scope.Close")
	t.Logf("containment: %+v", m.Features())
}
