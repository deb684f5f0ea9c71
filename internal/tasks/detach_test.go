package tasks

import (
	"testing"
)

// A foreground task detached while it runs is retained once it finishes,
// like a started one; one that finished before Detach leaves no record
// and Detach says so.
func TestDetachForeground(t *testing.T) {
	noLeaks(t)
	r := New(WithLimits(1, 4))
	g := newGate()
	fg, err := r.StartForeground(alice, "slow", g.work("late"))
	if err != nil {
		t.Fatal(err)
	}
	<-g.started
	if !fg.Detach() {
		t.Fatal("Detach of a running foreground task reported it finished")
	}
	if rec := fg.Record(); rec.Foreground {
		t.Fatalf("record after Detach still foreground: %+v", rec)
	}
	close(g.release)
	waitDone(t, fg)
	if rec, err := r.Get(alice, fg.ID()); err != nil || rec.State != Completed {
		t.Fatalf("the detached task after it finished: %+v, %v; want its retained record", rec, err)
	}
	if !fg.Detach() {
		t.Fatal("Detach of a task that is no longer foreground should report true")
	}

	quick := newGate()
	fast, err := r.StartForeground(alice, "fast", quick.work("soon"))
	if err != nil {
		t.Fatal(err)
	}
	close(quick.release)
	waitDone(t, fast)
	if fast.Detach() {
		t.Fatal("Detach of a finished foreground task reported it retained")
	}
	if _, err := r.Get(alice, fast.ID()); err == nil {
		t.Fatal("a foreground task that finished before Detach left a record")
	}
	if n := len(r.List(alice)); n != 1 {
		t.Fatalf("List has %d records, want the one detached task", n)
	}
}
