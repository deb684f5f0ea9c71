package proto

import "encoding/json"

// EventsParams are the params of events.read (Channel, Since, Limit),
// events.publish (Channel, Payload), events.subscribe (Channel, Since)
// and events.unsubscribe (Channel).
type EventsParams struct {
	Channel *string         `json:"channel"`
	Since   *uint64         `json:"since,omitempty"`
	Limit   *int            `json:"limit,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// EventsReadResult is the result of events.read: the newest events after
// since, oldest first.
type EventsReadResult struct {
	Channel string  `json:"channel"`
	Events  []Event `json:"events"`
}

// Published is the result of events.publish.
type Published struct {
	Channel string `json:"channel"`
	Seq     uint64 `json:"seq"`
	TS      int64  `json:"ts"`
}

// Subscribed is the result of events.subscribe.
type Subscribed struct {
	Channel    string `json:"channel"`
	Subscribed bool   `json:"subscribed"`
}

// Unsubscribed is the result of events.unsubscribe: whether the
// connection was subscribed.
type Unsubscribed struct {
	Channel      string `json:"channel"`
	Unsubscribed bool   `json:"unsubscribed"`
}
