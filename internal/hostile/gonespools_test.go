//go:build linux

package hostile

import (
	"context"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
)

// TestTaskOutputGoneSpoolsBound: the lengths of forgotten spools (so that
// task.output can say a forgotten task's bytes were dropped) are kept for
// at most kernel.MinGoneSpools spools at --output-spools 1. A task
// forgotten first is known to have dropped its bytes; ten times that
// many execs that print (each exec's spool is forgotten when it answers)
// push it out of what is remembered, so it then answers as empty (no
// error); the kernel's memory stays where it was, another client is
// served throughout, and a task forgotten just now is known again.
func TestTaskOutputGoneSpoolsBound(t *testing.T) {
	if testing.Short() {
		t.Skip("forty thousand execs")
	}
	k := Start(t, Options{Flags: []string{"--output-spools", "1"}})
	ctx := Ctx(t)
	c := k.Attach(t, "gone", "")
	hb := k.Heartbeat(t)
	first, second := asyncPrinting(ctx, t, c, "first"), asyncPrinting(ctx, t, c, "second")
	wantDropped(ctx, t, c, first, int64(len("first\n")), "before the flood")
	for i := range 10 * kernel.MinGoneSpools {
		if _, err := c.Exec(ctx, client.ExecParams{Src: `echo x; 1`}); err != nil {
			t.Fatalf("exec %d: %v", i, err)
		}
	}
	k.WantRSSUnder(t, 256<<20)
	wantDropped(ctx, t, c, first, 0, "after the flood (its length no longer remembered)")
	wantDropped(ctx, t, c, second, 0, "after the flood (its length no longer remembered)")
	third := asyncPrinting(ctx, t, c, "third")
	asyncPrinting(ctx, t, c, "fourth")
	wantDropped(ctx, t, c, third, int64(len("third\n")), "after the flood, forgotten just now")
	if lat := hb.Stop(t); len(lat) == 0 {
		t.Error("the heartbeat client was not served")
	}
	k.Alive(t)
}

// asyncPrinting runs an async exec that prints word and a newline, waits
// for it and returns its task.
func asyncPrinting(ctx context.Context, t *testing.T, c *client.Client, word string) string {
	t.Helper()
	res, err := c.Exec(ctx, client.ExecParams{Src: "echo " + word + "; 1", Async: true})
	if err != nil || !res.IsTask() {
		t.Fatalf("async exec = %+v, %v", res, err)
	}
	if _, err := c.TaskAwait(ctx, res.Task, 0); err != nil {
		t.Fatal(err)
	}
	return res.Task
}

// wantDropped checks task's output answers, ended, with n bytes dropped
// and none to read.
func wantDropped(ctx context.Context, t *testing.T, c *client.Client, task string, n int64, when string) {
	t.Helper()
	ch, err := c.TaskOutput(ctx, task, 0, 0)
	if err != nil || ch.Dropped != n || ch.Next != n || !ch.EOF || (ch.Text != nil && *ch.Text != "") {
		t.Errorf("%s's output %s = %+v, %v; want %d bytes dropped", task, when, ch, err, n)
	}
}
