package tasks

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestOwnershipIsolation(t *testing.T) {
	noLeaks(t)
	r := New()
	task := mustStart(t, r, alice, blockForever)
	id := task.ID()
	others := []Owner{
		bob,       // same session name, other principal
		aliceMisc, // same principal, other session
		{Principal: "alice", Session: ""},
		{},
	}
	ops := map[string]func(Owner, string) error{
		"Get":    func(o Owner, id string) error { _, err := r.Get(o, id); return err },
		"Lookup": func(o Owner, id string) error { _, err := r.Lookup(o, id); return err },
		"Await": func(o Owner, id string) error {
			_, err := r.Await(context.Background(), o, id, time.Millisecond)
			return err
		},
		"Cancel":  func(o Owner, id string) error { _, err := r.Cancel(o, id); return err },
		"Suspend": func(o Owner, id string) error { _, err := r.Suspend(o, id); return err },
		"Resume":  func(o Owner, id string) error { _, err := r.Resume(o, id); return err },
	}
	for name, op := range ops {
		for _, o := range others {
			foreign := op(o, id)
			missing := op(o, "task:999")
			if !errors.Is(foreign, ErrUnknownTask) {
				t.Errorf("%s by %+v: %v, want ErrUnknownTask", name, o, foreign)
			}
			// Indistinguishable from an unknown id, message included
			// (modulo the id itself).
			if foreign != nil && missing != nil &&
				strings.ReplaceAll(foreign.Error(), id, "ID") != strings.ReplaceAll(missing.Error(), "task:999", "ID") {
				t.Errorf("%s: %q vs %q", name, foreign, missing)
			}
		}
		for _, bad := range []string{"", "task:0", "task:x", "out:1", "task:01"} {
			if err := op(alice, bad); !errors.Is(err, ErrUnknownTask) {
				t.Errorf("%s(%q) = %v", name, bad, err)
			}
		}
	}
	for _, o := range others {
		if l := r.List(o); len(l) != 0 {
			t.Errorf("List(%+v) = %v", o, l)
		}
	}
	// Foreign cancels did not touch it.
	if s := task.Record().State; s != Running {
		t.Errorf("state after foreign cancel = %s", s)
	}
	if l := r.List(alice); len(l) != 1 || l[0].Task != id {
		t.Errorf("List(alice) = %v", l)
	}
	if _, err := r.Cancel(alice, id); err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
}
