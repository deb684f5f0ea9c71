package client

import (
	"context"
	"encoding/json"

	"github.com/shoalgo/shoal/proto"
)

// The params and results of the kernel's methods are declared once, in
// proto; these names are the client's for them.
type (
	// ClientInfo describes the caller in session.attach.
	ClientInfo = proto.ClientInfo
	// AttachParams are the params of session.attach.
	AttachParams = proto.AttachParams
	// AttachResult is the result of session.attach.
	AttachResult = proto.AttachResult
	// Restored is what a session got back after a kernel restart
	// (AttachResult.Restored).
	Restored = proto.Restored
	// Caps is the capability summary of an attachment.
	Caps = proto.Caps
	// Dimensions is the per-dimension truth of Caps.Enforced.
	Dimensions = proto.Dimensions
	// CWD is a session's working directory.
	CWD = proto.CWD
	// ElideDefaults are the kernel's default value budgets.
	ElideDefaults = proto.ElideDefaults
	// Elide overrides value budgets for one call.
	Elide = proto.Elide
	// ExecParams are the params of exec.
	ExecParams = proto.ExecParams
	// Display is how an exec's statement output is rendered.
	Display = proto.Display
	// ExecResult is the result of exec.
	ExecResult = proto.ExecResult
	// ParseResult is the result of parse.
	ParseResult = proto.ParseResult
	// MethodInfo describes one kernel method in kernel.info.
	MethodInfo = proto.MethodInfo
	// KernelInfo is the result of kernel.info.
	KernelInfo = proto.KernelInfo
	// KernelPolicy is kernel.info's policy.
	KernelPolicy = proto.KernelPolicy
	// KernelMemory is kernel.info's memory.
	KernelMemory = proto.KernelMemory
	// Containment is kernel.info's containment.
	Containment = proto.Containment
	// ValueGetParams are the params of value.get.
	ValueGetParams = proto.ValueGetParams
	// ValueGetResult is the result of value.get.
	ValueGetResult = proto.ValueGetResult
	// Published is the result of events.publish.
	Published = proto.Published
	// JournalQueryParams are the params of journal.query.
	JournalQueryParams = proto.JournalQueryParams
	// JournalOutput is one stored output of a journal entry.
	JournalOutput = proto.JournalOutput
	// JournalEntry is one entry of journal.query's answer.
	JournalEntry = proto.JournalEntry
)

// Exec modes and positions.
const (
	ModeRun      = proto.ModeRun
	ModePlan     = proto.ModePlan
	ModeApproved = proto.ModeApproved
	PositionStmt = proto.PositionStmt
	PositionVal  = proto.PositionVal
)

// Value formats for value.get.
const (
	FormatJSON   = proto.FormatJSON
	FormatRender = proto.FormatRender
	FormatRaw    = proto.FormatRaw
)

// call calls method and decodes its result into a new R.
func call[R any](ctx context.Context, c *Client, method string, params any) (*R, error) {
	var r R
	if err := c.Call(ctx, method, params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Attach attaches this connection to a session. The params are repeated
// automatically after a reconnect (without Cwd).
func (c *Client) Attach(ctx context.Context, p AttachParams) (*AttachResult, error) {
	r, err := call[AttachResult](ctx, c, proto.MethodSessionAttach, p)
	if err != nil {
		return nil, err
	}
	if p.Cwd != "" {
		p.Cwd = ""
		if raw, err := json.Marshal(p); err == nil {
			c.mu.Lock()
			c.attach = raw
			c.mu.Unlock()
		}
	}
	return r, nil
}

// Exec runs Shoal source in the attached session.
func (c *Client) Exec(ctx context.Context, p ExecParams) (*ExecResult, error) {
	return call[ExecResult](ctx, c, proto.MethodExec, p)
}

// Parse parses src without evaluating it. A syntax error is a
// *proto.RPCError with code proto.CodeParseError.
func (c *Client) Parse(ctx context.Context, src string) (*ParseResult, error) {
	return call[ParseResult](ctx, c, proto.MethodParse, proto.ParseParams{Src: &src})
}

// KernelInfo asks the kernel for its version, protocol revision, methods,
// features and limits. It works before attaching.
func (c *Client) KernelInfo(ctx context.Context) (*KernelInfo, error) {
	return call[KernelInfo](ctx, c, proto.MethodKernelInfo, nil)
}

// ValueGet reads a stored value (out:N) or a projection of it.
func (c *Client) ValueGet(ctx context.Context, p ValueGetParams) (*ValueGetResult, error) {
	return call[ValueGetResult](ctx, c, proto.MethodValueGet, p)
}
