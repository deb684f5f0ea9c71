package eval

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// countingWriter counts the writes an evaluation makes.
type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n.Add(1)
	return len(p), nil
}

// waitParked waits until an evaluation is parked at one of p's
// checkpoints, failing after 5 s. Only then is a count of writes final: a
// running evaluation may go quiet for a while (a collection, a slice
// growing under the race detector) without being held.
func waitParked(t *testing.T, p *Pause, w *countingWriter) int64 {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); p.parked.Load() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("evaluation not held 5s after Suspend (%d writes)", w.n.Load())
		}
	}
	return w.n.Load()
}

// waitPast waits until w's count passes n, failing after 5 s.
func waitPast(t *testing.T, w *countingWriter, n int64) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); w.n.Load() <= n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("evaluation made no progress after Resume (%d writes)", n)
		}
	}
}

// TestPauseHoldsLoops suspends endless loops through a Pause and checks
// that they stop making progress, go on after Resume, and end with
// `cancelled` when cancelled while held.
func TestPauseHoldsLoops(t *testing.T) {
	for name, src := range map[string]string{
		"while": "var n = 0\nwhile true { n += 1\necho (n) }",
		"for":   "for i in 1..1000000000 { echo (i) }",
		// One builtin making every call: only the call checkpoint sees it.
		"calls": "fn tick(n) { echo (n)\nn }\n(1..2000000).map(x => tick(x))",
	} {
		t.Run(name, func(t *testing.T) {
			var out countingWriter
			in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.DenyAll), Dir: t.TempDir(), Env: []string{}, Stdout: &out})
			if err != nil {
				t.Fatal(err)
			}
			pause := new(Pause)
			ctx, cancel := context.WithCancel(WithPause(context.Background(), pause))
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := in.Eval(ctx, src)
				done <- err
			}()
			waitPast(t, &out, 10)
			if err := pause.Suspend(); err != nil {
				t.Fatal(err)
			}
			_ = pause.Suspend() // suspending twice changes nothing
			held := waitParked(t, pause, &out)
			time.Sleep(100 * time.Millisecond)
			if now := out.n.Load(); now != held {
				t.Fatalf("held evaluation wrote %d more times", now-held)
			}
			if err := pause.Resume(); err != nil {
				t.Fatal(err)
			}
			_ = pause.Resume()
			waitPast(t, &out, held)
			_ = pause.Suspend()
			waitParked(t, pause, &out)
			cancel()
			select {
			case err := <-done:
				if code := bfsCode(err); code != "cancelled" {
					t.Errorf("held evaluation cancelled: %v (code %q), want cancelled", err, code)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("held evaluation did not end on cancel")
			}
		})
	}
}

// TestPauseZeroValueRuns: an evaluation under an untouched Pause, or none,
// runs to the end.
func TestPauseZeroValueRuns(t *testing.T) {
	for _, ctx := range []context.Context{context.Background(), WithPause(context.Background(), new(Pause))} {
		in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.DenyAll), Dir: t.TempDir(), Env: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		v, err := in.Eval(ctx, "var n = 0\nwhile n < 3000 { n += 1 }\nn")
		if err != nil || value.Inline(v) != "3000" {
			t.Fatalf("Eval = %v, %v", v, err)
		}
	}
}
