package tasks

import "testing"

// TestNotifyOneAtATimeDoesNotAllocate checks that a notification queued
// and delivered alone (a task's usual case) takes the task's own slot, and
// that notifications queued while one is being delivered still go out, in
// order.
func TestNotifyOneAtATimeDoesNotAllocate(t *testing.T) {
	var got []State
	r := &Registry{}
	r.onChange = func(rec Record) { got = append(got, rec.State) }
	tk := &Task{r: r, done: make(chan struct{})}
	got = make([]State, 0, 1024)
	n := testing.AllocsPerRun(100, func() {
		r.mu.Lock()
		tk.rec.State = Running
		drain := tk.notifyLocked()
		r.mu.Unlock()
		if drain {
			tk.drain()
		}
	})
	if n != 0 {
		t.Errorf("a notification alone allocates %v times, want 0", n)
	}

	// Two more queued while the first is delivered.
	got = got[:0]
	r.onChange = func(rec Record) {
		got = append(got, rec.State)
		if len(got) == 1 {
			r.mu.Lock()
			tk.rec.State = Cancelling
			if tk.notifyLocked() {
				t.Error("a notification queued during delivery asked to drain")
			}
			tk.rec.State = Completed
			tk.notifyLocked()
			r.mu.Unlock()
		}
	}
	r.mu.Lock()
	tk.rec.State = Running
	drain := tk.notifyLocked()
	r.mu.Unlock()
	if !drain {
		t.Fatal("the first notification did not ask to drain")
	}
	tk.drain()
	if want := []State{Running, Cancelling, Completed}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("delivered %v, want %v", got, want)
	}
	select {
	case <-tk.done:
	default:
		t.Error("done not closed after the terminal notification")
	}
}
