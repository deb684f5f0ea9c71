package kernel_test

import (
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
)

// TestE2EEventsBridge checks that user.* channels cross between clients
// and Shoal code in the session, in both directions, without echo, and
// that other channels stay session-local.
func TestE2EEventsBridge(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	agent := k.attached(t, "br", "")
	runner := k.attached(t, "br", "")

	info, err := agent.KernelInfo(ctx)
	if err != nil || !info.Features["events.bridge"] {
		t.Fatalf("kernel.info events.bridge = %v, %v", info, err)
	}

	// A client publish reaches the session's language bus.
	if _, err := agent.EventsPublish(ctx, "user.ping", map[string]any{"n": 41}); err != nil {
		t.Fatal(err)
	}
	res, err := runner.Exec(ctx, client.ExecParams{Src: `channel("user.ping").latest().n + 1`})
	if err != nil || string(res.Value) != `{"$":"int","v":42}` {
		t.Fatalf("language saw %s, %v; want 42", res.Value, err)
	}

	// A Shoal reader blocked in take() wakes on a live client publish.
	done := make(chan *client.ExecResult, 1)
	errs := make(chan error, 1)
	go func() {
		r, err := runner.Exec(ctx, client.ExecParams{Src: `channel("user.go").take(timeout: 20s)`})
		if err != nil {
			errs <- err
			return
		}
		done <- r
	}()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case r := <-done:
			if string(r.Value) != `{"$":"str","v":"go"}` {
				t.Errorf("take returned %s, want \"go\"", r.Value)
			}
			break wait
		case err := <-errs:
			t.Fatal(err)
		case <-tick.C:
			if _, err := agent.EventsPublish(ctx, "user.go", "go"); err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatal("take never saw the client's publish")
		}
	}

	// A language emit on user.* reaches clients, once; other channels do not.
	sub, err := agent.Subscribe(ctx, "user.pong", 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err = runner.Exec(ctx, client.ExecParams{Src: `channel("user.pong").emit({ok: true})
channel("local.pong").emit(1)
channel("user.pong").events().take_until(every(200ms)).map(ev => ev.seq).take(5).collect()`})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Value), `"v":0`) || strings.Contains(string(res.Value), `"v":1`) {
		t.Errorf("language bus after one emit holds %s; want only seq 0 (no echo)", res.Value)
	}
	if ev := next(t, sub, 5*time.Second); string(ev.Payload) != `{"ok":true}` {
		t.Errorf("bridged event = %+v", ev)
	}
	evs, err := agent.EventsRead(ctx, "user.pong", 0, 0)
	if err != nil || len(evs) != 1 {
		t.Errorf("user.pong holds %d events (%v), want exactly 1", len(evs), err)
	}
	if evs, err := agent.EventsRead(ctx, "local.pong", 0, 0); err == nil && len(evs) != 0 {
		t.Errorf("non-user channel crossed the bridge: %+v", evs)
	} else if err != nil && !strings.Contains(err.Error(), "channel") {
		t.Errorf("read local.pong: %v", err)
	}
}
