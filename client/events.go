package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/shoalgo/shoal/proto"
)

// EventsRead fetches retained events of channel with a sequence number
// greater than since, at most limit of the newest (0 leaves the kernel's
// default). It is how a consumer fills the gap an overflow marker
// reports. An unknown channel yields no events.
func (c *Client) EventsRead(ctx context.Context, channel string, since uint64, limit int) ([]Event, error) {
	params := proto.EventsParams{Channel: &channel, Since: &since}
	if limit != 0 {
		params.Limit = &limit
	}
	var res struct {
		Channel string            `json:"channel"`
		Events  []json.RawMessage `json:"events"` // proto.Event, payloads kept raw
	}
	if err := c.Call(ctx, proto.MethodEventsRead, params, &res); err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(res.Events))
	for _, raw := range res.Events {
		var w wireEvent
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, fmt.Errorf("client: events.read: decode event: %w", err)
		}
		if w.Channel == "" {
			w.Channel = channel
		}
		out = append(out, Event{Channel: w.Channel, Seq: w.Seq, TS: w.TS, Payload: w.Payload})
	}
	return out, nil
}

// EventsPublish publishes payload on a user.* channel.
func (c *Client) EventsPublish(ctx context.Context, channel string, payload any) (*Published, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("client: events.publish: %w", err)
	}
	return call[Published](ctx, c, proto.MethodEventsPublish, proto.EventsParams{Channel: &channel, Payload: raw})
}
