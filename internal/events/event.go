package events

import (
	"encoding/json"
	"slices"
	"strconv"
)

// Scope is the (principal, session) pair a scoped channel belongs to. It
// is also the identity of a reader of a global channel.
type Scope struct {
	Principal string
	Session   string
}

// Event is one published event. Seq starts at 1 in each stream and only
// grows; Seq 0 marks a synthetic dropped marker (see Dropped). TS is
// nanoseconds since the Unix epoch. The JSON shape is the wire shape of
// an event notification's params.
type Event struct {
	Channel string          `json:"channel"`
	Seq     uint64          `json:"seq"`
	TS      int64           `json:"ts"`
	Payload json.RawMessage `json:"payload"`
	// ScopeSeq is, on a global channel a durable store numbers per
	// origin principal as well (PublishAtScoped), the event's number among
	// that principal's events. A reader whose View has Renumber sees it as
	// the event's seq. It is never on the wire as such.
	ScopeSeq uint64 `json:"-"`
	// ScopePayload, when set, is the payload such a reader sees instead
	// of Payload (the kernel's journal event names the row by the id its
	// principal's own readers know it by).
	ScopePayload json.RawMessage `json:"-"`
}

// Synthetic reports whether e is a dropped marker rather than a
// published event.
func (e Event) Synthetic() bool { return e.Seq == 0 }

// Dropped is the payload of a synthetic event: Count events of the
// channel were not delivered to this subscriber, the newest of them
// being LatestSeq.
type Dropped struct {
	Count     uint64 `json:"dropped"`
	LatestSeq uint64 `json:"latest_seq"`
}

// Audience limits who sees an event on a global channel: the exact scopes
// listed, and every session of the principals listed.
type Audience struct {
	Scopes     []Scope
	Principals []string
}

// Includes reports whether viewer is in the audience.
func (a *Audience) Includes(viewer Scope) bool {
	return slices.Contains(a.Scopes, viewer) || slices.Contains(a.Principals, viewer.Principal)
}

// Filter decides whether viewer may see ev on a global channel. It runs
// with the stream's lock held: it must be quick and must not call back
// into the Bus.
type Filter func(viewer Scope, ev Event) bool

// Sink receives a subscription's events, one at a time and in order, on
// the subscription's own goroutine. Sinks of different subscriptions run
// concurrently. A sink should not block for long: a blocked sink stalls
// only its own subscription, but Close cannot interrupt it. A non-nil
// error ends the subscription.
type Sink func(Event) error

// droppedEvent builds the synthetic marker for channel.
func droppedEvent(channel string, count, latest uint64, ts int64) Event {
	b := make([]byte, 0, 48)
	b = append(b, `{"dropped":`...)
	b = strconv.AppendUint(b, count, 10)
	b = append(b, `,"latest_seq":`...)
	b = strconv.AppendUint(b, latest, 10)
	b = append(b, '}')
	return Event{Channel: channel, TS: ts, Payload: b}
}
