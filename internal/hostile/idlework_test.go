//go:build linux

package hostile

import (
	"context"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// TestIdleIsIdle: with a short --session-idle, a session left with a live
// PTY, and one whose background task printed and ended moments ago, are
// not closed as idle, while a session with neither is (the control that
// shows the idle close ran); the PTY's program is still running.
func TestIdleIsIdle(t *testing.T) {
	const idle = 200 * time.Millisecond
	k := Start(t, Options{Flags: []string{"--session-idle", idle.String()}})
	ctx := Ctx(t)

	c := k.Attach(t, "with-pty", "")
	sh := "sh"
	pt, err := c.PTYOpen(ctx, proto.PTYOpenParams{Cmd: &sh})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()

	c = k.Attach(t, "with-output", "")
	res, err := c.Exec(ctx, client.ExecParams{Src: "sh { echo done }", Async: true})
	if err != nil || !res.IsTask() {
		t.Fatalf("async exec = %+v, %v", res, err)
	}
	if _, err := c.TaskAwait(ctx, res.Task, 0); err != nil {
		t.Fatal(err)
	}
	c.Close()

	c = k.Attach(t, "control", "")
	if _, err := c.Exec(ctx, client.ExecParams{Src: "1"}); err != nil {
		t.Fatal(err)
	}
	c.Close()

	// Released last, the control is closed only once the reaper has run
	// past the idle period for every session above.
	attach := func(name string) (*client.Client, bool) {
		cl := k.Client(t)
		actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		a, err := cl.Attach(actx, client.AttachParams{Session: name})
		if err != nil {
			t.Fatalf("attach %q: %v", name, err)
		}
		return cl, a.Created
	}
	deadline := time.Now().Add(time.Minute / 2)
	for {
		time.Sleep(5 * idle)
		cl, created := attach("control")
		cl.Close()
		if created {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the control session was never closed as idle")
		}
	}
	cl, created := attach("with-pty")
	if created {
		t.Error("a session with a live PTY was closed as idle")
	} else if l, err := cl.PTYList(ctx); err != nil || len(l.Ptys) != 1 || l.Ptys[0].PtyID != pt.PtyID {
		t.Errorf("the session's PTYs after the idle period = %+v, %v; want %s", l, err, pt.PtyID)
	}
	cl.Close()
	cl, created = attach("with-output")
	if created {
		t.Error("a session whose task printed moments ago was closed as idle")
	} else if ch, err := cl.TaskOutput(ctx, res.Task, 0, 0); err != nil || ch.Text == nil || *ch.Text != "done\n" {
		t.Errorf("the task's output after the idle period = %+v, %v", ch, err)
	}
	cl.Close()
	k.Alive(t)
}
