package host

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRunChildClosesOutputEarly: with the write ends held until the exit
// (holdWriteEndsOn), a child that closes its stdout and then writes more
// than a pipe holds to stderr is still drained while it runs (no
// deadlock), and both streams arrive whole.
func TestRunChildClosesOutputEarly(t *testing.T) {
	sh := prog(t, "sh")
	res, err := NewOS(AllowAll).Run(context.Background(), &Spawn{
		Argv: []string{sh, "-c", "echo out; exec 1>&-; head -c 300000 /dev/zero >&2"},
		Env:  []string{"PATH=/usr/bin:/bin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "out\n" || len(res.Stderr) != 300_000 || res.Status == nil || *res.Status != 0 {
		t.Fatalf("stdout %q, stderr %d bytes, status %v", res.Stdout, len(res.Stderr), res.Status)
	}
}

// TestRunHeldEndsCutOffAfterExit: the held write ends are closed at the
// child's exit, so a descendant that keeps the pipe open is cut off after
// the wait delay as before, with what the child wrote.
func TestRunHeldEndsCutOffAfterExit(t *testing.T) {
	sh := prog(t, "sh")
	h := NewOS(AllowAll, WithWaitDelay(200*time.Millisecond))
	done := make(chan struct{})
	var out string
	var runErr error
	go func() {
		defer close(done)
		res, err := h.Run(context.Background(), &Spawn{
			Argv: []string{sh, "-c", "echo parent; sleep 2 & exit 0"},
			Env:  []string{"PATH=/usr/bin:/bin"},
		})
		if err == nil {
			out = string(res.Stdout)
		}
		runErr = err
	}()
	<-done // the test's own timeout bounds this if the cut-off never comes
	if runErr != nil {
		t.Fatal(runErr)
	}
	if !strings.HasPrefix(out, "parent\n") {
		t.Fatalf("stdout %q", out)
	}
}

// TestRunHeldEndsClosedAtExit: the held write ends are closed when the
// child exits, so a child without descendants ends the drain at once: with
// a wait delay of an hour, a run that left them open would never return
// (the test's timeout would end it).
func TestRunHeldEndsClosedAtExit(t *testing.T) {
	tr := prog(t, "true")
	h := NewOS(AllowAll, WithWaitDelay(time.Hour))
	for range 20 {
		res, err := h.Run(context.Background(), &Spawn{Argv: []string{tr}})
		if err != nil || res.Status == nil || *res.Status != 0 {
			t.Fatalf("Run = %+v, %v", res, err)
		}
	}
}
