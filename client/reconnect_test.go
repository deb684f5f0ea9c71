package client

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// stateLog records state hook calls.
type stateLog struct {
	mu     sync.Mutex
	states []State
	ch     chan State
}

func newStateLog() *stateLog { return &stateLog{ch: make(chan State, 16)} }

func (l *stateLog) hook(s State, _ error) {
	l.mu.Lock()
	l.states = append(l.states, s)
	l.mu.Unlock()
	l.ch <- s
}

func (l *stateLog) wait(t *testing.T, want State) {
	t.Helper()
	for {
		select {
		case s := <-l.ch:
			if s == want {
				return
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("state %v never reported", want)
		}
	}
}

var fastRetry = ReconnectPolicy{Initial: 2 * time.Millisecond, Max: 20 * time.Millisecond}

func TestReconnectResubscribesFromLastSeq(t *testing.T) {
	k := newFakeKernel(t)
	log := newStateLog()
	c := dialFake(t, k, WithReconnect(fastRetry), WithStateHook(log.hook))
	ctx := testCtx(t)

	// The second connection's attach waits until the test releases it,
	// so the test can issue a call while the client is reconnecting.
	release := make(chan struct{})
	hung := make(chan struct{}, 1)
	k.setHandler(func(fc *fakeConn, req *proto.Request) {
		switch {
		case req.Method == "hang":
			hung <- struct{}{}
			return
		case req.Method == proto.MethodSessionAttach && fc.index == 1:
			<-release
		}
		k.defaultHandle(fc, req)
	})

	if _, err := c.Attach(ctx, AttachParams{Session: "work", Token: "secret"}); err != nil {
		t.Fatal(err)
	}
	sub, err := c.Subscribe(ctx, "task.7", 0)
	if err != nil {
		t.Fatal(err)
	}
	fc0 := k.conn(0)
	var ring []Event
	for seq := uint64(1); seq <= 5; seq++ {
		ring = append(ring, Event{Channel: "task.7", Seq: seq, Payload: []byte(`{"$":"int","v":1}`)})
	}
	for _, ev := range ring[:3] {
		fc0.event(ev.Channel, ev.Seq, ev.Payload)
	}
	for want := uint64(1); want <= 3; want++ {
		if ev := recv(t, sub); ev.Seq != want {
			t.Fatalf("seq %d, want %d", ev.Seq, want)
		}
	}
	// Events 4 and 5 are published while the client is away; the
	// kernel's ring replays them on resubscription.
	k.mu.Lock()
	k.replay["task.7"] = ring
	k.mu.Unlock()

	pending := make(chan error, 1)
	go func() { pending <- c.Call(ctx, "hang", nil, nil) }()
	<-hung
	_ = fc0.nc.Close()
	if err := <-pending; !isClosed(err) {
		t.Fatalf("call pending at loss: %v, want ErrClosed", err)
	}
	log.wait(t, StateDisconnected)

	during := make(chan error, 1)
	go func() {
		var s string
		err := c.Call(ctx, "sleep", map[string]any{"ms": 0, "v": "after"}, &s)
		if err == nil && s != "after" {
			err = errors.New("wrong result " + s)
		}
		during <- err
	}()
	select {
	case err := <-during:
		t.Fatalf("call during reconnect returned early: %v", err)
	case <-time.After(30 * time.Millisecond):
	}
	close(release)
	log.wait(t, StateReconnected)
	if err := <-during; err != nil {
		t.Fatalf("call during reconnect: %v", err)
	}

	for want := uint64(4); want <= 5; want++ {
		if ev := recv(t, sub); ev.Seq != want {
			t.Fatalf("after reconnect: seq %d, want %d", ev.Seq, want)
		}
	}
	k.conn(1).event("task.7", 6, proto.Int(6))
	if ev := recv(t, sub); ev.Seq != 6 {
		t.Fatalf("live after reconnect: seq %d, want 6", ev.Seq)
	}

	attaches := k.attachCalls()
	if len(attaches) != 2 || !bytes.Equal(attaches[0], attaches[1]) {
		t.Fatalf("attach params %q", attaches)
	}
	calls := k.subscribeCalls()
	if len(calls) != 2 {
		t.Fatalf("subscribe calls = %+v", calls)
	}
	if c1 := calls[1]; c1.conn != 1 || c1.channel != "task.7" || c1.since == nil || *c1.since != 3 {
		t.Fatalf("resubscribe = conn %d %q since %v, want conn 1 since 3", c1.conn, c1.channel, c1.since)
	}
}

func TestReconnectGivesUp(t *testing.T) {
	k := newFakeKernel(t)
	log := newStateLog()
	p := fastRetry
	p.MaxAttempts = 3
	c := dialFake(t, k, WithReconnect(p), WithStateHook(log.hook))
	ctx := testCtx(t)
	sub, err := c.Subscribe(ctx, "journal", 0)
	if err != nil {
		t.Fatal(err)
	}
	k.stop()
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("client did not give up")
	}
	if !isClosed(c.Err()) {
		t.Fatalf("Err = %v", c.Err())
	}
	if _, ok := <-sub.Events(); ok || !isClosed(sub.Err()) {
		t.Fatalf("subscription not ended: %v", sub.Err())
	}
	if err := c.Call(ctx, "echo", nil, nil); !isClosed(err) {
		t.Fatalf("call after give-up: %v", err)
	}
	log.wait(t, StateClosed)
	log.mu.Lock()
	defer log.mu.Unlock()
	if log.states[0] != StateDisconnected {
		t.Fatalf("states = %v", log.states)
	}
}

func TestReconnectRefusedAttachIsFinal(t *testing.T) {
	k := newFakeKernel(t)
	k.setHandler(func(fc *fakeConn, req *proto.Request) {
		if req.Method == proto.MethodSessionAttach && fc.index > 0 {
			fc.replyErr(req.ID, proto.CodeAuthFailed, "token revoked")
			return
		}
		k.defaultHandle(fc, req)
	})
	c := dialFake(t, k, WithReconnect(fastRetry))
	ctx := testCtx(t)
	if _, err := c.Attach(ctx, AttachParams{Token: "t"}); err != nil {
		t.Fatal(err)
	}
	_ = k.conn(0).nc.Close()
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("client kept retrying a refused attach")
	}
	var rpcErr *proto.RPCError
	if err := c.Err(); !isClosed(err) || !errors.As(err, &rpcErr) || rpcErr.Code != proto.CodeAuthFailed {
		t.Fatalf("Err = %v", err)
	}
	if n := len(k.attachCalls()); n != 1 {
		// Only the first attach is recorded by defaultHandle.
		t.Fatalf("%d recorded attaches", n)
	}
}

func TestCloseDuringReconnect(t *testing.T) {
	k := newFakeKernel(t)
	log := newStateLog()
	c := dialFake(t, k, WithReconnect(ReconnectPolicy{Initial: time.Hour}), WithStateHook(log.hook))
	_ = k.conn(0).nc.Close()
	log.wait(t, StateDisconnected)
	waitCtx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.Call(waitCtx, "echo", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call while reconnecting: %v", err)
	}
	done := make(chan struct{})
	go func() {
		_ = c.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked on the reconnect backoff")
	}
	if !errors.Is(c.Err(), ErrClientClosed) {
		t.Fatalf("Err = %v", c.Err())
	}
}

func TestBackoffDelay(t *testing.T) {
	p := ReconnectPolicy{Initial: 10 * time.Millisecond, Max: 50 * time.Millisecond, Multiplier: 2}.normalized()
	want := []time.Duration{10, 20, 40, 50, 50}
	for i, w := range want {
		if got := p.delay(i); got != w*time.Millisecond {
			t.Errorf("delay(%d) = %v, want %v", i, got, w*time.Millisecond)
		}
	}
	d := ReconnectPolicy{}.normalized()
	if d.Initial != DefaultReconnectPolicy.Initial || d.Max != DefaultReconnectPolicy.Max || d.Multiplier != 2 {
		t.Errorf("zero policy normalised to %+v", d)
	}
}
