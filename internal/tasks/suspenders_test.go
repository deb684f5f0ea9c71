package tasks

import (
	"context"
	"slices"
	"testing"
)

// TestSuspenderSetPastInline: a task with more Suspenders than fit inline
// (an exec's pause and many process groups) suspends and resumes every
// one; a released one gets no signal, releasing twice is harmless, and a
// release after the task ended does not touch what a later registration
// holds.
func TestSuspenderSetPastInline(t *testing.T) {
	noLeaks(t)
	r := New()
	const n = 3*suspendersInline + 1
	grps := make([]*fakeGroup, n)
	releases := make([]func(), n)
	ready := make(chan struct{})
	task := mustStart(t, r, alice, func(ctx context.Context) (any, error) {
		for i := range grps {
			grps[i] = &fakeGroup{}
			var ok bool
			if releases[i], ok = RegisterSuspender(ctx, grps[i]); !ok {
				t.Error("RegisterSuspender refused a task context")
			}
		}
		close(ready)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	<-ready
	// Free one inline slot and one mapped entry, one of them twice.
	releases[1]()
	releases[1]()
	releases[n-1]()
	if _, err := r.Suspend(alice, task.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resume(alice, task.ID()); err != nil {
		t.Fatal(err)
	}
	for i, g := range grps {
		want := []string{"STOP", "CONT"}
		if i == 1 || i == n-1 {
			want = nil
		}
		if got := g.signals(); !slices.Equal(got, want) {
			t.Errorf("group %d got %v, want %v", i, got, want)
		}
	}
	if got := task.ctl.suspenders.len(); got != n-2 {
		t.Errorf("%d Suspenders kept, want %d", got, n-2)
	}
	// Releasing every one leaves the task with nothing to suspend.
	for _, rel := range releases {
		rel()
	}
	if _, err := r.Suspend(alice, task.ID()); err == nil {
		t.Error("Suspend with every Suspender released succeeded")
	}
	if _, err := r.Cancel(alice, task.ID()); err != nil {
		t.Fatal(err)
	}
	<-task.Done()
}

// TestSuspenderSetKeysOutliveReset: keys are not reused after reset, so
// a stale release cannot forget a newer Suspender.
func TestSuspenderSetKeysOutliveReset(t *testing.T) {
	var ss suspenderSet
	old := ss.add(&fakeGroup{})
	ss.reset()
	g := &fakeGroup{}
	ss.add(g)
	ss.remove(old)
	if ss.len() != 1 {
		t.Fatalf("a stale key removed a newer Suspender: %d left", ss.len())
	}
	var seen []Suspender
	ss.each(func(s Suspender) { seen = append(seen, s) })
	if len(seen) != 1 || seen[0] != g {
		t.Errorf("each saw %v", seen)
	}
}
