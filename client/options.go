package client

import (
	"context"
	"net"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// Option configures a Client at Dial.
type Option func(*options)

// DialFunc opens a connection to the kernel socket at path.
type DialFunc func(ctx context.Context, path string) (net.Conn, error)

type options struct {
	dial      DialFunc
	maxFrame  int
	eventBuf  int
	reconnect *ReconnectPolicy
	onState   func(State, error)
}

func defaultOptions() options {
	return options{
		dial:     dialUnix,
		maxFrame: proto.MaxFrame,
		eventBuf: DefaultEventBuffer,
	}
}

// DefaultEventBuffer is the number of events a Subscription queues for a
// slow consumer before it coalesces further events into one overflow
// marker.
const DefaultEventBuffer = 256

func dialUnix(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}

// WithDialer replaces how the socket is opened (tests, proxies).
func WithDialer(f DialFunc) Option {
	return func(o *options) {
		if f != nil {
			o.dial = f
		}
	}
}

// WithMaxFrame bounds the length of one incoming line; a longer line
// closes the connection. Non-positive means proto.MaxFrame.
func WithMaxFrame(n int) Option {
	return func(o *options) {
		if n <= 0 {
			n = proto.MaxFrame
		}
		o.maxFrame = n
	}
}

// WithEventBuffer sets how many events each Subscription queues before
// coalescing (see [Event.Dropped]). Non-positive means DefaultEventBuffer.
func WithEventBuffer(n int) Option {
	return func(o *options) {
		if n <= 0 {
			n = DefaultEventBuffer
		}
		o.eventBuf = n
	}
}

// WithReconnect makes the client survive connection loss: it redials with
// backoff following p, repeats the last successful session.attach and
// resubscribes every open Subscription from its last received sequence
// number. Calls pending at the moment of loss fail with ErrClosed; calls
// made while reconnecting wait for the new connection (or their context,
// or p.CallWait).
func WithReconnect(p ReconnectPolicy) Option {
	return func(o *options) {
		p = p.normalized()
		o.reconnect = &p
	}
}

// WithStateHook registers f to be told about connection state changes. It
// is called from the client's goroutines: it must not block for long and
// must not call Close.
func WithStateHook(f func(State, error)) Option {
	return func(o *options) { o.onState = f }
}

// State is a connection state reported to a state hook.
type State int

// Connection states.
const (
	StateDisconnected State = iota // the connection was lost; err is the cause
	StateReconnected               // a new connection is attached and resubscribed
	StateClosed                    // the client is closed for good; err says why
)

// String names the state.
func (s State) String() string {
	switch s {
	case StateDisconnected:
		return "disconnected"
	case StateReconnected:
		return "reconnected"
	case StateClosed:
		return "closed"
	}
	return "unknown"
}

// ReconnectPolicy controls redialing after connection loss. The delay
// before attempt n (from 0) is Initial*Multiplier^n, capped at Max.
type ReconnectPolicy struct {
	Initial     time.Duration // first delay; default 50ms
	Max         time.Duration // delay cap; default 5s
	Multiplier  float64       // growth per attempt; default 2
	MaxAttempts int           // attempts per outage before giving up; 0 = unlimited
	// CallWait bounds how long a call or Subscribe made while the client
	// reconnects waits for the new connection: past it, it fails with an
	// error matching ErrUnavailable and ErrClosed, and reconnecting goes
	// on. 0 waits for as long as the call's context allows.
	CallWait time.Duration
}

// DefaultReconnectPolicy retries forever with 50ms..5s exponential backoff.
var DefaultReconnectPolicy = ReconnectPolicy{Initial: 50 * time.Millisecond, Max: 5 * time.Second, Multiplier: 2}

func (p ReconnectPolicy) normalized() ReconnectPolicy {
	if p.Initial <= 0 {
		p.Initial = DefaultReconnectPolicy.Initial
	}
	switch {
	case p.Max <= 0:
		p.Max = max(DefaultReconnectPolicy.Max, p.Initial)
	case p.Max < p.Initial:
		p.Max = p.Initial
	}
	if p.Multiplier < 1 {
		p.Multiplier = DefaultReconnectPolicy.Multiplier
	}
	return p
}

// delay returns the wait before attempt n.
func (p ReconnectPolicy) delay(n int) time.Duration {
	d := float64(p.Initial)
	for i := 0; i < n && d < float64(p.Max); i++ {
		d *= p.Multiplier
	}
	return min(time.Duration(d), p.Max)
}
