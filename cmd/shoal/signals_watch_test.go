package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// TestStopsSettledBeforeRun: once settle returns, both the signal given to
// watchStops and the one added later are registered, though each is
// registered on a goroutine of its own (signals.go). A signal sent right
// after settle cancels the watcher's context with signal.NotifyContext's
// cause; had settle not waited, it would have found the signal's default
// action and killed this test process.
func TestStopsSettledBeforeRun(t *testing.T) {
	for _, c := range []struct {
		send  syscall.Signal
		cause string
	}{
		{syscall.SIGTERM, "terminated signal received"},
		{syscall.SIGINT, "interrupt signal received"},
	} {
		t.Run(c.send.String(), func(t *testing.T) {
			ctx, w := watchStops(context.Background(), syscall.SIGTERM)
			t.Cleanup(func() { signal.Stop(w.ch); w.cancel(nil) })
			w.add(os.Interrupt)
			w.settle()
			if err := syscall.Kill(os.Getpid(), c.send); err != nil {
				t.Fatal(err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Minute): // a hang guard, not a measurement
				t.Fatalf("%v did not cancel the watcher's context", c.send)
			}
			if got := context.Cause(ctx); got == nil || got.Error() != c.cause {
				t.Fatalf("cause %v, want %q", got, c.cause)
			}
		})
	}
}

// TestSettleStopsWithoutWatcher: run called by a test has no process
// watcher, and settling it is nothing.
func TestSettleStopsWithoutWatcher(t *testing.T) {
	if processStops != nil {
		t.Skip("a process watcher is set")
	}
	settleStops()
}
