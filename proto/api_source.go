package proto

import "encoding/json"

// ParseParams are the params of parse; Src is required.
type ParseParams struct {
	Src *string `json:"src"`
}

// ParseResult is the result of parse: the versioned AST, kept raw.
type ParseResult struct {
	ASTVersion int             `json:"ast_version"`
	AST        json.RawMessage `json:"ast"`
}

// ParseErrorData is the data of a PARSE_ERROR: where, a hint, and whether
// more input could complete the source.
type ParseErrorData struct {
	Span       Span    `json:"span"`
	Hint       *string `json:"hint"`
	Incomplete bool    `json:"incomplete"`
}

// CompleteParams are the params of complete; Cursor is a byte offset into
// Src, its end when nil.
type CompleteParams struct {
	Src    *string `json:"src"`
	Cursor *int    `json:"cursor,omitempty"`
}

// CompleteResult is the result of complete.
type CompleteResult struct {
	Candidates []Candidate `json:"candidates"`
}

// Candidate is one completion: Replace is the span of the source it
// replaces.
type Candidate struct {
	Label   string `json:"label"`
	Kind    string `json:"kind"`
	Detail  string `json:"detail,omitempty"`
	Replace Span   `json:"replace"`
}

// ExplainParams are the params of explain: Src, or an ast_version 2 AST;
// Src wins when both are given.
type ExplainParams struct {
	Src *string         `json:"src,omitempty"`
	AST json.RawMessage `json:"ast,omitempty"`
}

// ExplainResult is the result of explain. PlanRef repeats Fingerprint, a
// description that plan.get never resolves; ExplainVerdict is what the
// caller's policy would say of running the source now.
type ExplainResult struct {
	ASTVersion    int             `json:"ast_version"`
	AST           json.RawMessage `json:"ast"`
	Effects       []Effect        `json:"effects"`
	Reversibility string          `json:"reversibility"`
	Opaque        bool            `json:"opaque"`
	Notes         []string        `json:"notes,omitempty"`
	PlanRef       string          `json:"plan_ref"`
	Fingerprint   string          `json:"fingerprint"`
	ExplainVerdict
}

// ExplainVerdict is the verdict part of explain's answer: the words of
// exec mode "plan" (PlanAnswer.Verdict, VerdictData): "allow",
// "approval_required" or "deny", with one reason for each effect not
// simply allowed (or the auto_apply rule that asked).
type ExplainVerdict struct {
	Verdict string   `json:"verdict"`
	Reasons []string `json:"reasons,omitempty"`
}
