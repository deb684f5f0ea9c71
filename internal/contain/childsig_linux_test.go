package contain

import (
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadMask is the calling thread's signal mask.
func threadMask(t *testing.T) unix.Sigset_t {
	t.Helper()
	var cur unix.Sigset_t
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, nil, &cur); err != nil {
		t.Fatal(err)
	}
	return cur
}

func hasSignal(set unix.Sigset_t, sig unix.Signal) bool {
	var one unix.Sigset_t
	sigaddset(&one, sig)
	for i := range one.Val {
		if one.Val[i] != 0 && set.Val[i]&one.Val[i] != 0 {
			return true
		}
	}
	return false
}

// TestHoldChildSignal: while held, SIGCHLD is blocked on the owner's
// thread and nothing else is changed; the restore puts the mask back as
// it was; and a child's exit while it is held still reaches the process
// (os/signal's subscribers, the subreaper among them), through another
// thread.
func TestHoldChildSignal(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGCHLD)
	defer signal.Stop(sigs)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadMask(t)
	if hasSignal(before, unix.SIGCHLD) {
		t.Fatal("SIGCHLD blocked before the hold")
	}
	restore := holdChildSignal()
	held := threadMask(t)
	if !hasSignal(held, unix.SIGCHLD) {
		restore()
		t.Fatal("SIGCHLD not blocked while held")
	}
	want := before
	sigaddset(&want, unix.SIGCHLD)
	if held != want {
		restore()
		t.Fatalf("held mask %x, want %x (the old one with SIGCHLD only)", held.Val[0], want.Val[0])
	}
	// Drain a SIGCHLD left by an earlier test's child.
	select {
	case <-sigs:
	default:
	}
	// Started from another goroutine: a fork on this thread would put
	// back the runtime's mask for it after the fork.
	started := make(chan error, 1)
	cmd := exec.Command("/bin/true")
	go func() { started <- cmd.Start() }()
	if err := <-started; err != nil {
		restore()
		t.Fatal(err)
	}
	select {
	case <-sigs:
	case <-time.After(30 * time.Second):
		restore()
		t.Fatal("no SIGCHLD reached the process while this thread held it")
	}
	_ = cmd.Wait()
	if still := threadMask(t); still != held {
		restore()
		t.Fatalf("mask changed while held: %x, want %x", still.Val[0], held.Val[0])
	}
	restore()
	if after := threadMask(t); after != before {
		t.Fatalf("mask after the restore %x, want %x", after.Val[0], before.Val[0])
	}
}
