package client

import (
	"bytes"
	"encoding/json"

	"github.com/shoalgo/shoal/proto"
)

// Event is one event notification on a subscribed channel, or an overflow
// marker standing for events that were dropped.
type Event struct {
	Channel string
	Seq     uint64
	TS      int64           // Unix nanoseconds
	Payload json.RawMessage // as sent; often a tagged wire value

	// Dropped is non-zero on an overflow marker: that many events were
	// dropped, the newest of them numbered LatestSeq. Markers come from
	// the client when the consumer falls behind its buffer, or from the
	// kernel when its own subscriber queue overflowed. A consumer that
	// needs the gap can fetch it with events.read.
	Dropped   uint64
	LatestSeq uint64
}

// IsOverflow reports whether e is an overflow marker.
func (e Event) IsOverflow() bool { return e.Dropped > 0 }

// Value decodes the payload as a tagged wire value.
func (e Event) Value() (proto.Value, error) { return DecodeValue(e.Payload) }

// wireEvent is the params of an "event" notification.
type wireEvent struct {
	Channel string          `json:"channel"`
	Seq     uint64          `json:"seq"`
	TS      int64           `json:"ts"`
	Payload json.RawMessage `json:"payload"`
}

// overflowPayload is the kernel's synthetic {dropped, latest_seq} payload.
type overflowPayload struct {
	Dropped   *uint64 `json:"dropped"`
	LatestSeq *uint64 `json:"latest_seq"`
}

// decodeEvent parses event params; ok is false for params without a
// channel or of the wrong shape.
func decodeEvent(params json.RawMessage) (Event, bool) {
	var w wireEvent
	if err := json.Unmarshal(params, &w); err != nil || w.Channel == "" {
		return Event{}, false
	}
	ev := Event{Channel: w.Channel, Seq: w.Seq, TS: w.TS, Payload: w.Payload}
	if isOverflowPayload(w.Payload) {
		var o overflowPayload
		if json.Unmarshal(w.Payload, &o) == nil && o.Dropped != nil && o.LatestSeq != nil && *o.Dropped > 0 {
			ev.Dropped, ev.LatestSeq = *o.Dropped, *o.LatestSeq
		}
	}
	return ev, true
}

// isOverflowPayload is a cheap pre-check: an object naming exactly the two
// marker members.
func isOverflowPayload(p json.RawMessage) bool {
	p = bytes.TrimSpace(p)
	if len(p) < 2 || p[0] != '{' || !bytes.Contains(p, []byte(`"latest_seq"`)) {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(p, &m) != nil || len(m) != 2 {
		return false
	}
	_, a := m["dropped"]
	_, b := m["latest_seq"]
	return a && b
}

// DecodeValue decodes a tagged wire value, such as an exec result's value
// or an event payload, with proto's strict decoder.
func DecodeValue(raw json.RawMessage) (proto.Value, error) {
	return proto.DecodeWire(raw)
}
