package client

import (
	"context"
	"encoding/json"

	"github.com/shoalgo/shoal/proto"
)

// JournalQueryParams are the params of journal.query. Nil and empty
// fields do not filter; Effects are effect kinds an entry must all have.
// Cursor is the id of the last entry of the previous page.
type JournalQueryParams struct {
	Since     *int64   `json:"since,omitempty"`
	Until     *int64   `json:"until,omitempty"`
	Principal string   `json:"principal,omitempty"`
	Session   string   `json:"session,omitempty"`
	Head      string   `json:"head,omitempty"`
	OK        *bool    `json:"ok,omitempty"`
	Effects   []string `json:"effects,omitempty"`
	Limit     int      `json:"limit,omitempty"`
	Cursor    int64    `json:"cursor,omitempty"`
}

// JournalOutput is one stored output of an entry: its kind ("value",
// "stdout", "stderr"), content hash (for blob.get) and length.
type JournalOutput struct {
	Kind string `json:"kind"`
	Hash string `json:"hash"`
	Len  int64  `json:"len"`
}

// JournalEntry is one entry of journal.query's answer (the pinned Journal
// shape of KERNEL-CONTRACT.md). TS is the start time in Unix ns; DurNS is
// nil for an entry that never finished.
type JournalEntry struct {
	ID        int64           `json:"id"`
	Session   string          `json:"session"`
	Principal string          `json:"principal"`
	TS        int64           `json:"ts"`
	DurNS     *int64          `json:"dur_ns"`
	Cwd       json.RawMessage `json:"cwd"`
	Src       string          `json:"src"`
	AST       json.RawMessage `json:"ast"`
	Effects   json.RawMessage `json:"effects"`
	Status    *int            `json:"status"`
	OK        bool            `json:"ok"`
	Opaque    bool            `json:"opaque"`
	Verdict   string          `json:"verdict"`
	Outputs   []JournalOutput `json:"outputs"`
}

// EffectKinds lists the kinds of the entry's effects, in order: each
// effect is an object with a "kind" or a bare kind string.
func (e *JournalEntry) EffectKinds() []string {
	var raw []json.RawMessage
	if json.Unmarshal(e.Effects, &raw) != nil {
		return nil
	}
	out := make([]string, 0, len(raw))
	for _, r := range raw {
		var obj struct {
			Kind string `json:"kind"`
		}
		var s string
		switch {
		case json.Unmarshal(r, &s) == nil:
			out = append(out, s)
		case json.Unmarshal(r, &obj) == nil && obj.Kind != "":
			out = append(out, obj.Kind)
		}
	}
	return out
}

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
