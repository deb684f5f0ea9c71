package tasks

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// TestRestore: records an earlier kernel kept come back terminal (a
// running one interrupted), owner-scoped, answer Await at once and ignore
// Cancel; new ids start above them and the floor; past MaxRetained only
// the newest stay.
func TestRestore(t *testing.T) {
	r := New(WithLimits(0, 3))
	r.Restore(alice, []Record{
		{Task: "task:2", State: Completed, StartedNs: 1, FinishedNs: 2, ResultRef: "out:4"},
		{Task: "task:5", State: Running, StartedNs: 3},
		{Task: "bogus", State: Completed},
	}, 9)
	rec, err := r.Get(alice, "task:5")
	if err != nil || rec.State != Interrupted || !errors.Is(rec.Err, ErrInterrupted) || rec.Session != "work" || rec.FinishedNs == 0 {
		t.Fatalf("restored running task = %+v, %v", rec, err)
	}
	if rec, err := r.Get(alice, "task:2"); err != nil || rec.State != Completed || rec.ResultRef != "out:4" {
		t.Fatalf("restored completed task = %+v, %v", rec, err)
	}
	if _, err := r.Get(bob, "task:5"); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("another owner sees a restored task: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if rec, err := r.Await(ctx, alice, "task:5", 0); err != nil || rec.State != Interrupted {
		t.Errorf("await of a restored task = %+v, %v", rec, err)
	}
	if rec, err := r.Cancel(alice, "task:5"); err != nil || rec.State != Interrupted {
		t.Errorf("cancel of a restored task = %+v, %v", rec, err)
	}
	tk, err := r.Start(alice, "new", func(context.Context) (any, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	<-tk.Done()
	if tk.ID() != "task:10" {
		t.Errorf("first new task after a restore with floor 9 = %s", tk.ID())
	}
	// Three retained, the new one last.
	if list := r.List(alice); len(list) != 3 || list[0].Task != "task:2" || list[2].Task != "task:10" {
		t.Errorf("list after a restore and a new task = %+v", list)
	}
	// Past MaxRetained only the newest restored records stay.
	r2 := New(WithLimits(0, 2))
	var recs []Record
	for i := 1; i <= 5; i++ {
		recs = append(recs, Record{Task: "task:" + strconv.Itoa(i), State: Failed, Err: errors.New("x")})
	}
	r2.Restore(alice, recs, 0)
	if list := r2.List(alice); len(list) != 2 || list[0].Task != "task:4" || list[1].Task != "task:5" {
		t.Errorf("restore past MaxRetained kept %+v", list)
	}
}

// TestStatesAgree: proto's terminal states are the registry's.
func TestStatesAgree(t *testing.T) {
	for _, s := range []State{Running, Cancelling, Cancelled, Failed, Completed, Interrupted} {
		if s.Terminal() != proto.TaskTerminal(string(s)) {
			t.Errorf("state %s: registry terminal %v, proto %v", s, s.Terminal(), proto.TaskTerminal(string(s)))
		}
	}
}
