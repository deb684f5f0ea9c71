package kernel_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
	"github.com/shoalgo/shoal/proto"
)

func TestE2EEventsPublishSubscribeRead(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	pub := k.attached(t, "ev", "")
	sub := k.attached(t, "ev", "")

	p1, err := pub.EventsPublish(ctx, "user.build", map[string]string{"phase": "start"})
	if err != nil {
		t.Fatal(err)
	}
	if p1.Channel != "user.build" || p1.Seq != 1 || p1.TS == 0 {
		t.Errorf("publish = %+v", p1)
	}
	s, err := sub.Subscribe(ctx, "user.build", 0)
	if err != nil {
		t.Fatal(err)
	}
	if ev := next(t, s, 5*time.Second); ev.Seq != 1 || string(ev.Payload) != `{"phase":"start"}` {
		t.Errorf("replayed %+v", ev)
	}
	if _, err := pub.EventsPublish(ctx, "user.build", "done"); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, s, 5*time.Second); ev.Seq != 2 || string(ev.Payload) != `"done"` {
		t.Errorf("live %+v", ev)
	}

	// Only user.* is publishable; the payload is capped.
	for _, ch := range []string{"journal", "render", "session.transcript", "task.1", "user.", "nope"} {
		_, err := pub.EventsPublish(ctx, ch, 1)
		wantCode(t, "publish on "+ch, err, proto.CodeInvalidParams)
	}
	_, err = pub.EventsPublish(ctx, "user.big", strings.Repeat("x", 70<<10))
	wantCode(t, "oversized payload", err, proto.CodeInvalidParams)

	// Unknown channels read as empty; limit is clamped to 1,024.
	evs, err := pub.EventsRead(ctx, "user.never", 0, 0)
	if err != nil || len(evs) != 0 {
		t.Errorf("unknown channel read = %v, %v", evs, err)
	}
	var raw struct {
		Channel string            `json:"channel"`
		Events  []json.RawMessage `json:"events"`
	}
	if err := pub.Call(ctx, "events.read", map[string]any{"channel": "user.never"}, &raw); err != nil || raw.Channel != "user.never" || raw.Events == nil {
		t.Errorf("unknown channel raw read = %+v, %v", raw, err)
	}
	for i := 0; i < 1100; i++ {
		if _, err := pub.EventsPublish(ctx, "user.many", i); err != nil {
			t.Fatal(err)
		}
	}
	evs, err = pub.EventsRead(ctx, "user.many", 0, 5000)
	if err != nil || len(evs) != 1024 || evs[len(evs)-1].Seq != 1100 {
		t.Errorf("read with limit 5000: %d events, %v", len(evs), err)
	}

	// Unsubscribe stops delivery.
	if err := s.Unsubscribe(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pub.EventsPublish(ctx, "user.build", "after"); err != nil {
		t.Fatal(err)
	}
	for ev := range s.Events() {
		t.Errorf("event after unsubscribe: %+v", ev)
	}
}

// slowSubscriberHang is how long TestE2ESlowSubscriberGetsOverflowMarker
// waits for its 3,000 publishes and their delivery before it calls the
// test hung, and the outbox stall its kernel tolerates. Under the race
// detector on a loaded 2-core machine the publishes alone took past 30 s:
// testCtx's deadline ended the test's own calls, and the kernel's
// default EventStall (30 s of no progress, which a subscriber paused for
// the whole flood is) closed the connection the test checks survives.
// Neither is what the test is about; EventStall's closing is
// TestStuckSubscriberIsClosed's (stall_test.go).
const slowSubscriberHang = 5 * time.Minute

// A subscriber that stops reading gets a {dropped, latest_seq} marker in
// place of what did not fit, and keeps its connection.
func TestE2ESlowSubscriberGetsOverflowMarker(t *testing.T) {
	k := newE2EWith(t, func(c *kernel.Config) { c.EventStall = slowSubscriberHang })
	ctx, cancel := context.WithTimeout(context.Background(), slowSubscriberHang)
	defer cancel()
	var gate *gatedConn
	dialer := gatedDialer(&gate)
	const n = 3000
	sub := k.attached(t, "slow", "", client.WithDialer(dialer), client.WithEventBuffer(4*n))
	s, err := sub.SubscribeLive(ctx, "user.flood")
	if err != nil {
		t.Fatal(err)
	}
	pub := k.attached(t, "slow", "")
	gate.pause()
	payload := strings.Repeat("p", 2048)
	for i := 1; i <= n; i++ {
		if _, err := pub.EventsPublish(ctx, "user.flood", payload); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	gate.resume()

	var got, dropped uint64
	markers := 0
	for got+dropped < n {
		ev := next(t, s, slowSubscriberHang)
		if ev.IsOverflow() {
			markers++
			dropped += ev.Dropped
			if ev.LatestSeq == 0 || ev.LatestSeq > n {
				t.Errorf("marker latest_seq %d", ev.LatestSeq)
			}
			continue
		}
		got++
	}
	if markers == 0 || dropped == 0 {
		t.Fatalf("no overflow marker: %d events, %d dropped", got, dropped)
	}
	if got+dropped != n {
		t.Errorf("%d delivered + %d dropped != %d published", got, dropped, n)
	}
	// The connection survived and the gap can be read back.
	if _, err := sub.KernelInfo(ctx); err != nil {
		t.Errorf("slow subscriber was disconnected: %v", err)
	}
	evs, err := sub.EventsRead(ctx, "user.flood", n-10, 0)
	if err != nil || len(evs) != 10 {
		t.Errorf("reading back the tail: %d events, %v", len(evs), err)
	}
}

// A client with reconnection resubscribes from its last seq when the kernel
// restarts on the same socket, and keeps seeing rising seqs.
func TestE2EReconnectResubscribesAfterRestart(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	k1 := serveE2E(t, sock, dir, store)
	ctx := testCtx(t)
	states := make(chan client.State, 16)
	sub := k1.attached(t, "rc", "",
		client.WithReconnect(client.ReconnectPolicy{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Multiplier: 2}),
		client.WithStateHook(func(s client.State, _ error) { states <- s }))
	s, err := sub.Subscribe(ctx, "user.rc", 0)
	if err != nil {
		t.Fatal(err)
	}
	pub := k1.attached(t, "rc", "")
	for i := 1; i <= 3; i++ {
		if _, err := pub.EventsPublish(ctx, "user.rc", i); err != nil {
			t.Fatal(err)
		}
		if ev := next(t, s, 5*time.Second); ev.Seq != uint64(i) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
	}
	k1.stop(t)
	k2 := serveE2E(t, sock, dir, store)
	waitState(t, states, client.StateReconnected)
	if s.LastSeq() != 3 {
		t.Errorf("cursor after reconnect %d", s.LastSeq())
	}
	pub2 := k2.attached(t, "rc", "")
	if _, err := pub2.EventsPublish(ctx, "user.rc", "after restart"); err != nil {
		t.Fatal(err)
	}
	ev := next(t, s, 5*time.Second)
	if string(ev.Payload) != `"after restart"` || ev.Seq <= 3 {
		t.Errorf("after restart got %+v, want a seq above 3", ev)
	}
	// The resubscribed session is a working attachment.
	res, err := sub.Exec(ctx, client.ExecParams{Src: "1 + 1"})
	if err != nil || res.Render != "2" {
		t.Errorf("exec after reconnect = %+v, %v", res, err)
	}
}

func waitState(t *testing.T, states <-chan client.State, want client.State) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case s := <-states:
			if s == want {
				return
			}
			if s == client.StateClosed {
				t.Fatalf("client closed while waiting for %v", want)
			}
		case <-deadline:
			t.Fatalf("state %v never reached", want)
		}
	}
}
