package tasks

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeGroup records the signals a Suspender would send.
type fakeGroup struct {
	mu   sync.Mutex
	sent []string
	fail error
}

func (f *fakeGroup) Suspend() error { return f.log("STOP") }
func (f *fakeGroup) Resume() error  { return f.log("CONT") }

func (f *fakeGroup) log(sig string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	f.sent = append(f.sent, sig)
	return nil
}

func (f *fakeGroup) signals() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

// controlled is work that registers grp and blocks until cancelled.
func controlled(grp *fakeGroup, registered chan<- bool) Work {
	return func(ctx context.Context) (any, error) {
		release, ok := RegisterSuspender(ctx, grp)
		defer release()
		registered <- ok
		<-ctx.Done()
		return nil, ctx.Err()
	}
}

func TestSuspendResume(t *testing.T) {
	noLeaks(t)
	r := New()
	var rec recorder
	r.OnChange(rec.hook)
	grp := &fakeGroup{}
	reg := make(chan bool, 1)
	task := mustStart(t, r, alice, controlled(grp, reg))
	if !<-reg {
		t.Fatal("RegisterSuspender refused a task context")
	}
	id := task.ID()
	steps := []struct {
		op        func(Owner, string) (Record, error)
		suspended bool
	}{
		{r.Suspend, true},
		{r.Suspend, true}, // idempotent: no second STOP
		{r.Resume, false},
		{r.Resume, false}, // idempotent
		{r.Suspend, true},
	}
	for i, s := range steps {
		got, err := s.op(alice, id)
		if err != nil || got.Suspended != s.suspended || got.State != Running {
			t.Fatalf("step %d: %+v, %v", i, got, err)
		}
	}
	if got := grp.signals(); !slices.Equal(got, []string{"STOP", "CONT", "STOP"}) {
		t.Errorf("signals = %v", got)
	}
	// Cancelling a suspended task continues it so it can die.
	if _, err := r.Cancel(alice, id); err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
	if got := grp.signals(); !slices.Equal(got, []string{"STOP", "CONT", "STOP", "CONT"}) {
		t.Errorf("signals after cancel = %v", got)
	}
	want := []string{"running", "running+suspended", "running", "running+suspended", "cancelling", "cancelled"}
	if got := rec.states(id); !slices.Equal(got, want) {
		t.Errorf("notifications = %v, want %v", got, want)
	}
	// Finished: no control.
	if _, err := r.Resume(alice, id); !errors.Is(err, ErrControlUnavailable) {
		t.Errorf("Resume of finished = %v", err)
	}
}

func TestSuspendUnavailableWithoutSuspender(t *testing.T) {
	noLeaks(t)
	r := New()
	task := mustStart(t, r, alice, blockForever)
	for _, op := range []func(Owner, string) (Record, error){r.Suspend, r.Resume} {
		got, err := op(alice, task.ID())
		if !errors.Is(err, ErrControlUnavailable) {
			t.Errorf("err = %v, want ErrControlUnavailable", err)
		}
		if got.Task != task.ID() || got.State != Running || got.Suspended {
			t.Errorf("record = %+v", got)
		}
	}
	// Ownership is checked before availability.
	if _, err := r.Suspend(bob, task.ID()); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("foreign Suspend = %v, want ErrUnknownTask", err)
	}
	if err := r.CancelAll(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestSuspenderRegisteredWhileSuspendedIsStopped(t *testing.T) {
	noLeaks(t)
	r := New()
	first, second := &fakeGroup{}, &fakeGroup{}
	reg := make(chan bool)
	next := make(chan struct{})
	task := mustStart(t, r, alice, func(ctx context.Context) (any, error) {
		rel, _ := RegisterSuspender(ctx, first)
		reg <- true
		<-next
		rel() // first process ended; a second one starts
		rel2, _ := RegisterSuspender(ctx, second)
		defer rel2()
		reg <- true
		<-ctx.Done()
		return nil, nil
	})
	<-reg
	if _, err := r.Suspend(alice, task.ID()); err != nil {
		t.Fatal(err)
	}
	close(next)
	<-reg
	if got := second.signals(); !slices.Equal(got, []string{"STOP"}) {
		t.Errorf("late suspender got %v", got)
	}
	if _, err := r.Resume(alice, task.ID()); err != nil {
		t.Fatal(err)
	}
	if got, want := first.signals(), []string{"STOP"}; !slices.Equal(got, want) {
		t.Errorf("released suspender got %v, want %v", got, want)
	}
	if got := second.signals(); !slices.Equal(got, []string{"STOP", "CONT"}) {
		t.Errorf("late suspender got %v", got)
	}
	if _, err := r.Cancel(alice, task.ID()); err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
}

func TestSuspendFailure(t *testing.T) {
	noLeaks(t)
	r := New()
	bad := errors.New("no such process")
	grp := &fakeGroup{fail: bad}
	reg := make(chan bool, 1)
	task := mustStart(t, r, alice, controlled(grp, reg))
	<-reg
	got, err := r.Suspend(alice, task.ID())
	if !errors.Is(err, bad) || got.Suspended {
		t.Errorf("Suspend = %+v, %v", got, err)
	}
	if _, err := r.Cancel(alice, task.ID()); err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
}

func TestRegisterSuspenderOutsideTask(t *testing.T) {
	release, ok := RegisterSuspender(context.Background(), &fakeGroup{})
	if ok {
		t.Error("registered outside a task")
	}
	release() // harmless
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, ok := RegisterSuspender(ctx, nil); ok {
		t.Error("registered a nil suspender")
	}
}
