package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestTakeOverOnce: a script's takeover called from many goroutines at
// once (the host's hook from the script and its tasks, the grace timer)
// returns in each only once the signals are registered, so a SIGTERM sent
// right after any of them returns cancels the watcher's context, with the
// signal as its cause, instead of killing the process.
func TestTakeOverOnce(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals itself")
	}
	ctx, w := watchStops(context.Background())
	t.Cleanup(func() { signal.Stop(w.ch) })
	if w.taken.Load() {
		t.Fatal("a new watcher says its signals are taken over")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.takeOver()
			if !w.taken.Load() {
				t.Error("takeOver returned before the takeover was made")
			}
		}()
	}
	wg.Wait()
	w.takeOver() // made: one load
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("SIGTERM did not cancel the watcher's context")
	}
	if got, want := context.Cause(ctx).Error(), syscall.SIGTERM.String()+" signal received"; got != want {
		t.Errorf("cause %q, want %q", got, want)
	}
}
