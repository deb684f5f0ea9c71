package proto

import (
	"encoding/json"
	"errors"
	"strconv"
)

// TaskParams are the params of task.get, task.await, task.cancel,
// task.suspend and task.resume; TimeoutMS is task.await's only.
type TaskParams struct {
	Task      *string `json:"task"`
	TimeoutMS *int64  `json:"timeout_ms,omitempty"`
}

// TaskRecord is a task's record, the result of task.get, task.await,
// task.cancel, task.suspend and task.resume, and an entry of task.list.
// FinishedNs, ResultRef and Error are null when absent; Error is the
// message text. Output is what a running exec task printed so far
// (task.get, and a task.await that timed out).
type TaskRecord struct {
	Task       string      `json:"task"`
	Session    string      `json:"session"`
	State      string      `json:"state"`
	StartedNs  int64       `json:"started_ns"`
	FinishedNs *int64      `json:"finished_ns"`
	ResultRef  *string     `json:"result_ref"`
	Error      *string     `json:"error"`
	Suspended  bool        `json:"suspended,omitempty"`
	TimedOut   bool        `json:"timed_out,omitempty"`
	Foreground bool        `json:"foreground,omitempty"`
	Language   bool        `json:"language,omitempty"`
	Desc       string      `json:"desc,omitempty"`
	Output     *TaskOutput `json:"output,omitempty"`
}

// TaskOutput is the tail of what a running exec task has printed: the
// last bytes it keeps (cut at a character), the bytes printed in all, and
// whether Text is not all of it.
type TaskOutput struct {
	Text      string `json:"text"`
	Bytes     int64  `json:"bytes"`
	Truncated bool   `json:"truncated"`
}

// TaskList is the result of task.list.
type TaskList struct {
	Tasks []TaskRecord `json:"tasks"`
}

// PlanRefParams are the params of plan.get and plan.apply.
type PlanRefParams struct {
	PlanRef *string `json:"plan_ref"`
}

// PlanRecord is the result of plan.get: the caller's stored plan.
type PlanRecord struct {
	PlanRef         string          `json:"plan_ref"`
	Session         string          `json:"session"`
	Principal       string          `json:"principal"`
	Src             string          `json:"src"`
	ASTVersion      int             `json:"ast_version"`
	AST             json.RawMessage `json:"ast"`
	Effects         []Effect        `json:"effects"`
	Reversibility   string          `json:"reversibility"`
	Opaque          bool            `json:"opaque"`
	Notes           []string        `json:"notes,omitempty"`
	Verdict         string          `json:"verdict"`
	Reasons         []string        `json:"reasons,omitempty"`
	StoredVerdict   string          `json:"stored_verdict"`
	State           string          `json:"state"`
	ApprovalPending bool            `json:"approval_pending"`
	Approved        bool            `json:"approved"`
	Approver        string          `json:"approver,omitempty"`
	Uncovered       []string        `json:"uncovered,omitempty"`
	CreatedNS       int64           `json:"created_ns"`
	ExpiresNS       int64           `json:"expires_ns"`
}

// PlanSummary is one plan of plan.list.
type PlanSummary struct {
	PlanRef         string `json:"plan_ref"`
	Src             string `json:"src"`
	SrcTruncated    bool   `json:"src_truncated,omitempty"`
	Effects         int    `json:"effects"`
	Reversibility   string `json:"reversibility"`
	Verdict         string `json:"verdict"`
	State           string `json:"state"`
	ApprovalPending bool   `json:"approval_pending"`
	Approved        bool   `json:"approved"`
	CreatedNS       int64  `json:"created_ns"`
	ExpiresNS       int64  `json:"expires_ns"`
}

// PlanList is the result of plan.list.
type PlanList struct {
	Plans []PlanSummary `json:"plans"`
}

// CapRequestParams are the params of cap.request: Effects (kind strings
// or objects with a kind) must cover the plan's effect kinds for it to be
// approved; Deny denies it.
type CapRequestParams struct {
	PlanRef *string           `json:"plan_ref"`
	Effects []json.RawMessage `json:"effects,omitempty"`
	Deny    bool              `json:"deny,omitempty"`
}

// CapRequestResult is the result of cap.request.
type CapRequestResult struct {
	PlanRef         string   `json:"plan_ref"`
	State           string   `json:"state"`
	Approved        bool     `json:"approved"`
	ApprovalPending bool     `json:"approval_pending"`
	Uncovered       []string `json:"uncovered,omitempty"`
}

// ApprovalEvent is the payload of an event on the approval channel.
type ApprovalEvent struct {
	PlanRef          string   `json:"plan_ref"`
	Principal        string   `json:"principal"`
	Session          string   `json:"session"`
	Effects          []Effect `json:"effects"`
	EffectsTruncated bool     `json:"effects_truncated,omitempty"`
	Reversibility    string   `json:"reversibility"`
	Verdict          string   `json:"verdict"`
	State            string   `json:"state"`
	Approver         string   `json:"approver,omitempty"`
}

// JournalMaxLimit is the largest page journal.query answers: a larger
// limit is clamped to it (journal.MaxQueryLimit is this value).
const JournalMaxLimit = 1000

// JournalQueryParams are the params of journal.query. Nil and empty
// fields do not filter; Effects are effect kinds an entry must all have.
// Cursor is the id of the last entry of the previous page.
type JournalQueryParams struct {
	Since     *int64        `json:"since,omitempty"`
	Until     *int64        `json:"until,omitempty"`
	Principal string        `json:"principal,omitempty"`
	Session   string        `json:"session,omitempty"`
	Head      string        `json:"head,omitempty"`
	OK        *bool         `json:"ok,omitempty"`
	Effects   []string      `json:"effects,omitempty"`
	Limit     int           `json:"limit,omitempty"`
	Cursor    JournalCursor `json:"cursor,omitempty"`

	hasLimit bool
}

// HasLimit reports whether the decoded params held "limit" (0 is not its
// absence: it is out of range).
func (p *JournalQueryParams) HasLimit() bool { return p.hasLimit }

type journalQueryParams struct {
	*journalQueryFields
	Limit *int `json:"limit"`
}

type journalQueryFields JournalQueryParams

// UnmarshalJSON decodes the params, recording whether limit was present.
func (p *JournalQueryParams) UnmarshalJSON(b []byte) error {
	*p = JournalQueryParams{}
	w := journalQueryParams{journalQueryFields: (*journalQueryFields)(p)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p.Limit, p.hasLimit = deref(w.Limit), w.Limit != nil
	return nil
}

// JournalCursor is journal.query's cursor: the id of the last entry of the
// previous page, sent as a number and accepted as a number or a decimal
// string; 0 is none.
type JournalCursor int64

// errCursor words a cursor that is not an entry id.
var errCursor = errors.New("cursor is the id of the last entry of the previous page")

// UnmarshalJSON accepts a positive id as a number or a decimal string, and
// null as none.
func (c *JournalCursor) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err == nil && n > 0 {
		*c = JournalCursor(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
			*c = JournalCursor(n)
			return nil
		}
	}
	return errCursor
}

// JournalOutput is one stored output of an entry: its kind ("value",
// "stdout", "stderr", ...), content hash (for blob.get) and length.
type JournalOutput struct {
	Kind string `json:"kind"`
	Hash string `json:"hash"`
	Len  int64  `json:"len"`
}

// JournalEntry is one entry of journal.query's answer (the pinned Journal
// shape of KERNEL-CONTRACT.md), and the payload of a journal event. TS is
// the start time in Unix ns; DurNS is nil for an entry that never
// finished.
type JournalEntry struct {
	ID        int64  `json:"id"`
	Session   string `json:"session"`
	Principal string `json:"principal"`
	TS        int64  `json:"ts"`
	DurNS     *int64 `json:"dur_ns"`
	Finished  bool   `json:"finished"`
	Interrupt bool   `json:"interrupted"`
	Cwd       string `json:"cwd"`
	Src       string `json:"src"`
	// SrcTruncated is set on journal events whose source was cut.
	SrcTruncated bool            `json:"src_truncated,omitempty"`
	AST          json.RawMessage `json:"ast"`
	Effects      json.RawMessage `json:"effects"`
	Status       *int            `json:"status"`
	OK           bool            `json:"ok"`
	Opaque       bool            `json:"opaque"`
	Verdict      string          `json:"verdict"`
	Outputs      []JournalOutput `json:"outputs"`
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

// BlobGetParams are the params of blob.get: a range of the blob named by
// Hash (all of it, up to the per-call bound, when both are nil).
type BlobGetParams struct {
	Hash   *string `json:"hash"`
	Offset *int64  `json:"offset,omitempty"`
	Length *int64  `json:"length,omitempty"`
}

// BlobResult is the result of blob.get: Len is the blob's total bytes;
// Value the decoded JSON when the blob is JSON and no range was asked,
// otherwise {"$":"bytes","v":base64} of the range.
type BlobResult struct {
	Hash   string          `json:"hash"`
	Len    int64           `json:"len"`
	Offset int64           `json:"offset"`
	EOF    bool            `json:"eof"`
	Value  json.RawMessage `json:"value"`
}

// PlanGone is the data of an UNKNOWN_PLAN (-32012) answer about a plan
// that can no longer run, while the kernel keeps its tombstone: State is
// "applied", "expired", or "denied" (a denied plan past its time). A ref
// the kernel never stored, or whose tombstone it forgot, has no data.
type PlanGone struct {
	PlanRef string `json:"plan_ref"`
	State   string `json:"state"`
}
