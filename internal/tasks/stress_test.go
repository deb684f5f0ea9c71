package tasks

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Concurrent use of every method; the race detector is the main check,
// plus the end state: every task terminal, none left live.
func TestConcurrentUse(t *testing.T) {
	noLeaks(t)
	r := New(WithLimits(8, 16))
	var rec recorder
	r.OnChange(rec.hook)
	owners := []Owner{alice, bob, aliceMisc}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all []*Task
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := owners[w%len(owners)]
			for i := 0; i < 30; i++ {
				grp := &fakeGroup{}
				task, err := r.Start(o, "stress", func(ctx context.Context) (any, error) {
					rel, _ := RegisterSuspender(ctx, grp)
					defer rel()
					select {
					case <-ctx.Done():
					case <-time.After(time.Duration(i%4) * time.Millisecond):
					}
					return i, nil
				})
				if err != nil {
					continue // live bound reached: fine under stress
				}
				mu.Lock()
				all = append(all, task)
				mu.Unlock()
				id := task.ID()
				_, _ = r.Suspend(o, id)
				_, _ = r.Resume(o, id)
				_ = r.List(o)
				if i%3 == 0 {
					_, _ = r.Cancel(o, id)
				}
				_, _ = r.Await(context.Background(), o, id, time.Millisecond)
			}
		}()
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.CancelAll(ctx); err != nil {
		t.Fatal(err)
	}
	for _, task := range all {
		waitDone(t, task)
		rec := task.Record()
		if !rec.State.Terminal() || rec.Suspended {
			t.Errorf("%s: %+v", rec.Task, rec)
		}
	}
	for _, o := range owners {
		if n := len(r.List(o)); n > 16 {
			t.Errorf("%+v retains %d records", o, n)
		}
	}
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{"task:1", "task:0", "task:007", "task:18446744073709551615", "task:", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := parseID(s)
		if !ok {
			if n != 0 {
				t.Errorf("parseID(%q) = %d, false", s, n)
			}
			return
		}
		if n == 0 || formatID(n) != s {
			t.Errorf("parseID(%q) = %d, not canonical", s, n)
		}
	})
}
