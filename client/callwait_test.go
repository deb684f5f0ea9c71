package client

import (
	"errors"
	"testing"
	"time"
)

// TestCallWaitBoundsAnOutage: with ReconnectPolicy.CallWait, a call or a
// Subscribe made while the client cannot reconnect fails once it has
// waited that long, with an error matching ErrUnavailable and ErrClosed,
// and the client itself stays open, still reconnecting.
func TestCallWaitBoundsAnOutage(t *testing.T) {
	k := newFakeKernel(t)
	log := newStateLog()
	p := ReconnectPolicy{Initial: time.Hour, CallWait: 30 * time.Millisecond}
	c := dialFake(t, k, WithReconnect(p), WithStateHook(log.hook))
	_ = k.conn(0).nc.Close()
	log.wait(t, StateDisconnected)
	ctx := testCtx(t)
	err := c.Call(ctx, "echo", nil, nil)
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrClosed) {
		t.Fatalf("call during the outage: %v", err)
	}
	if got, want := err.Error(), "client: echo: client: kernel unavailable, still reconnecting (waited 30ms)"; got != want {
		t.Fatalf("the outage's error reads %q, want %q", got, want)
	}
	if _, err := c.Subscribe(ctx, "journal", 0); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("subscribe during the outage: %v", err)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("the client closed after a call gave up: %v", err)
	}
	if err := ctx.Err(); err != nil {
		t.Fatalf("the calls waited for their context, not CallWait: %v", err)
	}
}

// TestCallWaitAllowsAQuickReconnect: a call made during an outage shorter
// than CallWait waits for the new connection and succeeds.
func TestCallWaitAllowsAQuickReconnect(t *testing.T) {
	k := newFakeKernel(t)
	log := newStateLog()
	p := fastRetry
	p.CallWait = time.Minute
	c := dialFake(t, k, WithReconnect(p), WithStateHook(log.hook))
	_ = k.conn(0).nc.Close()
	log.wait(t, StateDisconnected)
	if err := c.Call(testCtx(t), "echo", nil, nil); err != nil {
		t.Fatalf("call across a quick reconnect: %v", err)
	}
}
