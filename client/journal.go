package client

import (
	"context"
	"encoding/json"

	"github.com/shoalgo/shoal/proto"
)

// JournalQuery calls journal.query and returns the entries, newest first,
// and the raw answer (for callers that pass it on verbatim).
func (c *Client) JournalQuery(ctx context.Context, p JournalQueryParams) ([]JournalEntry, json.RawMessage, error) {
	var raw json.RawMessage
	if err := c.Call(ctx, proto.MethodJournalQuery, p, &raw); err != nil {
		return nil, nil, err
	}
	var out []JournalEntry
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, nil, err
	}
	return out, raw, nil
}
