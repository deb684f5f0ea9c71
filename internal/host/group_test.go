package host

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// procState reads the one-letter state of pid from /proc ('T' stopped,
// 'S' sleeping, ...), or 0 when it is gone.
func procState(pid int) byte {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return 0
	}
	return s[i+2]
}

// waitStates waits until every pid is in a state that want accepts.
func waitStates(t *testing.T, pids []int, what string, want func(byte) bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		ok := true
		for _, pid := range pids {
			if !want(procState(pid)) {
				ok = false
			}
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			var got []string
			for _, pid := range pids {
				got = append(got, strconv.Itoa(pid)+":"+string(procState(pid)))
			}
			t.Fatalf("processes not %s within 5s: %v", what, got)
		}
	}
}

// TestGroupHookSuspendResume starts a shell with two background sleeps
// under a GroupHook and checks that the reported ProcessGroup stops and
// continues every member, that a cancel ends a stopped group with SIGTERM
// (it is continued first, not left for SIGKILL after the grace), and that
// the hook's release runs once the child is reaped.
func TestGroupHookSuspendResume(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	sh := prog(t, "sh")
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	groups := make(chan ProcessGroup, 1)
	released := make(chan struct{})
	ctx, cancel := context.WithCancel(WithGroupHook(context.Background(), func(ctx context.Context, pg ProcessGroup) func() {
		if ctx.Value(groupHookKey{}) == nil {
			t.Error("hook called without the Run's context")
		}
		groups <- pg
		return func() { close(released) }
	}))
	defer cancel()
	type out struct {
		res *Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		// A long kill grace: a stopped group left to SIGKILL would take 30s.
		res, err := NewOS(AllowAll, WithKillGrace(30*time.Second)).Run(ctx, &Spawn{Argv: []string{sh, "-c",
			`sleep 30 & echo $! >> pids; sleep 30 & echo $! >> pids; echo $$ >> pids; wait`}, Dir: dir})
		done <- out{res, err}
	}()
	pg := <-groups
	var tree []int
	for deadline := time.Now().Add(5 * time.Second); len(tree) < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("tree did not start; pids so far %v", tree)
		}
		data, _ := os.ReadFile(pids)
		tree = tree[:0]
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				tree = append(tree, pid)
			}
		}
	}
	if pg.ID() != tree[2] {
		t.Fatalf("group id %d, want the shell's pid %d", pg.ID(), tree[2])
	}
	stopped := func(s byte) bool { return s == 'T' || s == 't' }
	if err := pg.Suspend(); err != nil {
		t.Fatal(err)
	}
	waitStates(t, tree, "stopped", stopped)
	if err := pg.Resume(); err != nil {
		t.Fatal(err)
	}
	waitStates(t, tree, "running again", func(s byte) bool { return s != 0 && !stopped(s) })
	if err := pg.Suspend(); err != nil {
		t.Fatal(err)
	}
	waitStates(t, tree, "stopped", stopped)
	cancel()
	var o out
	select {
	case o = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("a cancelled, suspended group was not ended by SIGTERM")
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.res.Signal != "SIGTERM" {
		t.Errorf("suspended shell ended by %q, want SIGTERM", o.res.Signal)
	}
	select {
	case <-released:
	default:
		t.Error("release not called by the time Run returned")
	}
	// After the child is reaped the group is never signalled again.
	if err := pg.Suspend(); err != nil {
		t.Errorf("Suspend after exit: %v", err)
	}
}

// TestGroupHookAbsent: without a hook Run works as before, and a hook
// returning a nil release is allowed.
func TestGroupHookAbsent(t *testing.T) {
	tr := prog(t, "true")
	for _, ctx := range []context.Context{
		context.Background(),
		WithGroupHook(context.Background(), func(context.Context, ProcessGroup) func() { return nil }),
	} {
		res, err := NewOS(AllowAll).Run(ctx, &Spawn{Argv: []string{tr}})
		if err != nil || res.Status == nil || *res.Status != 0 {
			t.Fatalf("Run = %+v, %v", res, err)
		}
	}
}
