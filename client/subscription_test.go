package client

import (
	"errors"
	"testing"
	"time"

	"github.com/shoalgo/shoal/proto"
)

func recv(t *testing.T, s *Subscription) Event {
	t.Helper()
	select {
	case ev, ok := <-s.Events():
		if !ok {
			t.Fatalf("subscription %s closed: %v", s.Channel(), s.Err())
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatalf("no event on %s", s.Channel())
	}
	panic("unreachable")
}

// TestSubscriptionOverflowCoalesces floods a subscription whose consumer
// is not reading. The reader must not block (a call made after the flood
// completes), and the consumer then sees a bounded prefix followed by one
// marker accounting for every dropped event.
func TestSubscriptionOverflowCoalesces(t *testing.T) {
	const buf, total = 4, 50
	k := newFakeKernel(t)
	c := dialFake(t, k, WithEventBuffer(buf))
	ctx := testCtx(t)
	sub, err := c.Subscribe(ctx, "user.flood", 0)
	if err != nil {
		t.Fatal(err)
	}
	fc := k.conn(0)
	for seq := uint64(1); seq <= total; seq++ {
		fc.event("user.flood", seq, proto.Int(seq))
	}
	// Events precede this response on the wire, so once it returns the
	// reader has handled all of them without waiting for the consumer.
	if err := c.Call(ctx, "echo", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := sub.LastSeq(); got != total {
		t.Fatalf("LastSeq = %d, want %d", got, total)
	}
	var delivered, dropped uint64
	var markers int
	next := uint64(1)
	for delivered+dropped < total {
		ev := recv(t, sub)
		if ev.IsOverflow() {
			markers++
			dropped += ev.Dropped
			if ev.LatestSeq != total {
				t.Fatalf("marker latest_seq = %d, want %d", ev.LatestSeq, total)
			}
			continue
		}
		if markers > 0 || ev.Seq != next {
			t.Fatalf("event seq %d after %d markers, want %d", ev.Seq, markers, next)
		}
		next++
		delivered++
	}
	if markers != 1 || delivered > buf+1 || delivered+dropped != total {
		t.Fatalf("delivered %d, dropped %d in %d markers (buffer %d)", delivered, dropped, markers, buf)
	}
	// Once drained, events flow normally again.
	fc.event("user.flood", total+1, proto.Int(0))
	if ev := recv(t, sub); ev.IsOverflow() || ev.Seq != total+1 {
		t.Fatalf("after drain: %+v", ev)
	}
}

// TestSubscribeReplayBeforeResponse: replayed events the kernel sends
// before the subscribe response are delivered, not lost.
func TestSubscribeReplayBeforeResponse(t *testing.T) {
	k := newFakeKernel(t)
	k.replay["task.7"] = []Event{
		{Channel: "task.7", Seq: 1, Payload: []byte(`{"$":"str","v":"a"}`)},
		{Channel: "task.7", Seq: 2, Payload: []byte(`{"$":"str","v":"b"}`)},
		{Channel: "task.7", Seq: 3, Payload: []byte(`{"$":"str","v":"c"}`)},
	}
	c := dialFake(t, k)
	ctx := testCtx(t)
	sub, err := c.Subscribe(ctx, "task.7", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []uint64{2, 3} {
		if ev := recv(t, sub); ev.Seq != want {
			t.Fatalf("replayed seq %d, want %d", ev.Seq, want)
		}
	}
	calls := k.subscribeCalls()
	if len(calls) != 1 || calls[0].since == nil || *calls[0].since != 1 {
		t.Fatalf("subscribe calls = %+v", calls)
	}
	if _, err := c.Subscribe(ctx, "task.7", 0); !errors.Is(err, ErrSubscribed) {
		t.Fatalf("second subscribe: %v", err)
	}
}

func TestSubscribeLiveOmitsSince(t *testing.T) {
	k := newFakeKernel(t)
	c := dialFake(t, k)
	if _, err := c.SubscribeLive(testCtx(t), "render"); err != nil {
		t.Fatal(err)
	}
	calls := k.subscribeCalls()
	if len(calls) != 1 || calls[0].since != nil {
		t.Fatalf("subscribe calls = %+v", calls)
	}
}

func TestSubscribeRefused(t *testing.T) {
	k := newFakeKernel(t)
	k.setHandler(func(fc *fakeConn, req *proto.Request) {
		if req.Method == proto.MethodEventsSubscribe {
			fc.replyErr(req.ID, proto.CodeNotAttached, "not attached")
			return
		}
		k.defaultHandle(fc, req)
	})
	c := dialFake(t, k)
	ctx := testCtx(t)
	_, err := c.Subscribe(ctx, "journal", 0)
	var rpcErr *proto.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != proto.CodeNotAttached {
		t.Fatalf("err = %v", err)
	}
	// The failed subscription is not left registered.
	k.setHandler(nil)
	if _, err := c.Subscribe(ctx, "journal", 0); err != nil {
		t.Fatalf("retry: %v", err)
	}
}

func TestUnsubscribe(t *testing.T) {
	k := newFakeKernel(t)
	c := dialFake(t, k)
	ctx := testCtx(t)
	sub, err := c.Subscribe(ctx, "user.a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Unsubscribe(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-sub.Events(); ok {
		t.Fatal("events channel open after Unsubscribe")
	}
	if sub.Err() != nil {
		t.Fatalf("Err after plain unsubscribe = %v", sub.Err())
	}
	if err := c.Unsubscribe(ctx, "user.a"); err == nil {
		t.Fatal("second Unsubscribe succeeded")
	}
	// Events for a channel nobody holds are ignored; the client stays up.
	k.conn(0).event("user.a", 9, proto.Null{})
	if err := c.Call(ctx, "echo", nil, nil); err != nil {
		t.Fatal(err)
	}
	// Resubscribing works.
	if _, err := c.Subscribe(ctx, "user.a", 9); err != nil {
		t.Fatal(err)
	}
}

func TestEventsReadAndPublish(t *testing.T) {
	k := newFakeKernel(t)
	k.replay["user.r"] = []Event{
		{Channel: "user.r", Seq: 1, TS: 10, Payload: []byte(`{"$":"int","v":1}`)},
		{Channel: "user.r", Seq: 2, TS: 20, Payload: []byte(`{"$":"int","v":2}`)},
	}
	c := dialFake(t, k)
	ctx := testCtx(t)
	evs, err := c.EventsRead(ctx, "user.r", 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Seq != 2 || evs[0].TS != 20 || evs[0].Channel != "user.r" {
		t.Fatalf("events.read = %+v", evs)
	}
	if v, err := evs[0].Value(); err != nil || v != proto.Int(2) {
		t.Fatalf("payload = %v, %v", v, err)
	}
	pub, err := c.EventsPublish(ctx, "user.r", map[string]string{"phase": "done"})
	if err != nil || pub.Channel != "user.r" || pub.Seq != 11 {
		t.Fatalf("publish = %+v, %v", pub, err)
	}
}

// TestDetachedEndsSubscriptions: the kernel's session.detached notice ends
// every subscription with a *DetachedError; the client stays usable and
// can subscribe again.
func TestDetachedEndsSubscriptions(t *testing.T) {
	k := newFakeKernel(t)
	c := dialFake(t, k)
	ctx := testCtx(t)
	a, err := c.Subscribe(ctx, "user.a", 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.SubscribeLive(ctx, "task.1")
	if err != nil {
		t.Fatal(err)
	}
	k.conn(0).raw(`{"jsonrpc":"2.0","method":"session.detached","params":{"session":"s","principal":"agent:x","token":"ab","reason":"token_revoked","message":"authentication failed: token revoked"}}`)
	for _, s := range []*Subscription{a, b} {
		select {
		case _, ok := <-s.Events():
			if ok {
				t.Fatalf("%s delivered an event after the detach", s.Channel())
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s not ended by session.detached", s.Channel())
		}
		var d *DetachedError
		if !errors.Is(s.Err(), ErrDetached) || !errors.As(s.Err(), &d) || d.Reason != "token_revoked" || d.Token != "ab" {
			t.Errorf("%s: Err = %v", s.Channel(), s.Err())
		}
	}
	if err := c.Call(ctx, "echo", nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Subscribe(ctx, "user.a", 0); err != nil {
		t.Errorf("subscribe after the detach: %v", err)
	}
}
