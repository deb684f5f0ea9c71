package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/shoalgo/shoal/proto"
)

// ClientInfo describes the caller in session.attach.
type ClientInfo struct {
	Kind string `json:"kind"`
	TTY  bool   `json:"tty"`
}

// AttachParams are the params of session.attach. An empty Session means
// "default"; an empty Token attaches as the kernel owner's local principal.
type AttachParams struct {
	Session string      `json:"session,omitempty"`
	Token   string      `json:"token,omitempty"`
	Client  *ClientInfo `json:"client,omitempty"`
	// Cwd, when set, moves the session to this absolute directory once
	// attached (as cd would, through the principal's gate); a reconnect
	// repeats the attach without it, so the session stays where it went.
	Cwd string `json:"cwd,omitempty"`
}

// Caps is the capability summary of an attachment.
type Caps struct {
	Enforced      bool   `json:"enforced"`
	Tier          string `json:"tier"`
	AvailableTier string `json:"available_tier"`
	// Dimensions says per dimension whether the OS sandbox confines the
	// session's spawned programs.
	Dimensions      Dimensions `json:"dimensions"`
	PolicyPrincipal string     `json:"policy_principal"`
	Profile         string     `json:"profile"`
	TokenCaps       []string   `json:"token_caps"`
	Opaque          string     `json:"opaque"`
}

// Dimensions is the per-dimension truth of Caps.Enforced.
type Dimensions struct {
	FS  bool `json:"fs"`
	Net bool `json:"net"`
}

// CWD is a session's working directory: Display is readable, Raw (base64
// of the exact bytes), when present, is authoritative.
type CWD struct {
	Display string `json:"display"`
	Raw     string `json:"raw,omitempty"`
}

// ElideDefaults are the kernel's default value budgets.
type ElideDefaults struct {
	MaxBytes    int `json:"max_bytes"`
	MaxRows     int `json:"max_rows"`
	MaxItems    int `json:"max_items"`
	MaxBytesRaw int `json:"max_bytes_raw"`
	HardCap     int `json:"hard_cap"`
}

// AttachResult is the result of session.attach.
type AttachResult struct {
	Session       string        `json:"session"`
	Principal     string        `json:"principal"`
	Caps          Caps          `json:"caps"`
	CWD           CWD           `json:"cwd"`
	EnvHash       string        `json:"env_hash"`
	ASTVersion    int           `json:"ast_version"`
	CapsEnforced  bool          `json:"caps_enforced"`
	ElideDefaults ElideDefaults `json:"elide_defaults"`
	Channels      []string      `json:"channels"`
	// Created is set when the attach made a fresh session: the name was
	// new, or its earlier session had been closed for idleness.
	Created bool `json:"created"`
	// CwdRefused says why the Cwd asked for was not entered; the session
	// is then in CWD.
	CwdRefused string `json:"cwd_refused,omitempty"`
}

// Attach attaches this connection to a session. The params are repeated
// automatically after a reconnect (without Cwd).
func (c *Client) Attach(ctx context.Context, p AttachParams) (*AttachResult, error) {
	var r AttachResult
	if err := c.Call(ctx, proto.MethodSessionAttach, p, &r); err != nil {
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
	return &r, nil
}

// Elide overrides value budgets for one call; zero fields keep defaults.
type Elide struct {
	MaxBytes int `json:"max_bytes,omitempty"`
	MaxRows  int `json:"max_rows,omitempty"`
	MaxItems int `json:"max_items,omitempty"`
}

// Exec modes and positions.
const (
	ModeRun      = "run"
	ModePlan     = "plan"
	ModeApproved = "approved"
	PositionStmt = "stmt"
	PositionVal  = "value"
)

// ExecParams are the params of exec. Zero fields are omitted, so the
// kernel defaults apply (mode "run", position "stmt").
type ExecParams struct {
	Src       string `json:"src"`
	Mode      string `json:"mode,omitempty"`
	Position  string `json:"position,omitempty"`
	Async     bool   `json:"async,omitempty"`
	TimeoutMS int64  `json:"timeout_ms,omitempty"`
	Elide     *Elide `json:"elide,omitempty"`
	PlanRef   string `json:"plan_ref,omitempty"`
	// Display asks for statement output rendered for a person (see
	// Display); nil: the plain display.
	Display *Display `json:"display,omitempty"`
}

// Display is how an exec's statement output is rendered: datetimes to
// TimePrecisionNS (0: all of it) and a table's `name` column left out
// where it repeats `path` (FoldNames), as the standalone shoal shows them.
type Display struct {
	TimePrecisionNS int64 `json:"time_precision_ns,omitempty"`
	FoldNames       bool  `json:"fold_names,omitempty"`
}

// ExecResult is the result of exec, one of three shapes: a completed value
// (Ref, Value, Render), a task (Task, Events, TimedOut) for async or
// timed-out work, or a stored plan (PlanRef, Effects, ...) for mode "plan".
type ExecResult struct {
	Ref    string          `json:"ref,omitempty"`
	Value  json.RawMessage `json:"value,omitempty"`
	Render string          `json:"render,omitempty"`
	// Exit is the status an `exit` in the source asked for (the session
	// itself goes on); nil when it did not exit.
	Exit *int `json:"exit,omitempty"`
	// Cwd is the session's directory once the exec ended.
	Cwd string `json:"cwd,omitempty"`

	Task     string `json:"task,omitempty"`
	Events   string `json:"events,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`

	PlanRef         string          `json:"plan_ref,omitempty"`
	Effects         json.RawMessage `json:"effects,omitempty"`
	Reversibility   string          `json:"reversibility,omitempty"`
	Opaque          bool            `json:"opaque,omitempty"`
	Verdict         string          `json:"verdict,omitempty"`
	Reasons         []string        `json:"reasons,omitempty"`
	State           string          `json:"state,omitempty"`
	ApprovalPending bool            `json:"approval_pending,omitempty"`
	Notes           []string        `json:"notes,omitempty"`
}

// IsTask reports whether the result names a task rather than a value.
func (r *ExecResult) IsTask() bool { return r.Task != "" }

// IsPlan reports whether the result is a stored plan.
func (r *ExecResult) IsPlan() bool { return r.PlanRef != "" && r.Task == "" && r.Value == nil }

// Decode decodes the result's value as a wire value.
func (r *ExecResult) Decode() (proto.Value, error) {
	if r.Value == nil {
		return nil, fmt.Errorf("client: exec result has no value")
	}
	return DecodeValue(r.Value)
}

// Exec runs Shoal source in the attached session.
func (c *Client) Exec(ctx context.Context, p ExecParams) (*ExecResult, error) {
	var r ExecResult
	if err := c.Call(ctx, proto.MethodExec, p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ParseResult is the result of parse: the versioned AST, kept raw.
type ParseResult struct {
	ASTVersion int             `json:"ast_version"`
	AST        json.RawMessage `json:"ast"`
}

// Parse parses src without evaluating it. A syntax error is a
// *proto.RPCError with code proto.CodeParseError.
func (c *Client) Parse(ctx context.Context, src string) (*ParseResult, error) {
	var r ParseResult
	if err := c.Call(ctx, proto.MethodParse, struct {
		Src string `json:"src"`
	}{src}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// MethodInfo describes one kernel method in kernel.info.
type MethodInfo struct {
	Name           string `json:"name"`
	RequiresAttach bool   `json:"requires_attach"`
	Implemented    bool   `json:"implemented"`
}

// KernelInfo is the result of kernel.info.
type KernelInfo struct {
	Name       string          `json:"name"`
	Version    string          `json:"version"`
	Protocol   int             `json:"protocol"`
	ASTVersion int             `json:"ast_version"`
	Methods    []MethodInfo    `json:"methods"`
	PreAttach  []string        `json:"pre_attach"`
	Features   map[string]bool `json:"features"`
	Limits     map[string]int  `json:"limits"`
	// Containment is nil from a kernel that does not report it.
	Containment *Containment `json:"containment"`
	// Memory is nil from a kernel that does not report it.
	Memory *KernelMemory `json:"memory"`
	// Cgo is whether the kernel binary was built with cgo; nil when it
	// does not say.
	Cgo *bool `json:"cgo"`
	// StateDir is the kernel's state directory ("" when it keeps none or
	// does not say); TokenStore its token store.
	StateDir   string `json:"state_dir"`
	TokenStore string `json:"token_store"`
	// Policy is the Leash policy in force; nil from a kernel that does
	// not say.
	Policy *KernelPolicy `json:"policy"`
}

// KernelPolicy is kernel.info's policy: the file it came from ("": the
// built-in default) and how many principals it names.
type KernelPolicy struct {
	Path       string `json:"path"`
	Principals int    `json:"principals"`
}

// KernelMemory says where a kernel's memory bounds come from
// (kernel.info's memory object; docs/kernel.md, "Memory defaults"). Sizes
// are bytes, 0 meaning none.
type KernelMemory struct {
	// Limit is the smallest of the limits found, Source where it was
	// found: "rlimit_as", "cgroup", "physical" or "none".
	Limit  int64  `json:"limit"`
	Source string `json:"source"`
	// Usable is what the Go heap may use under Limit.
	Usable   int64 `json:"usable"`
	RlimitAS int64 `json:"rlimit_as"`
	Cgroup   int64 `json:"cgroup"`
	Physical int64 `json:"physical"`
	// The bounds in force, and the defaults derived for them.
	SessionBudget int64            `json:"session_budget"`
	KernelBudget  int64            `json:"kernel_budget"`
	SoftLimit     int64            `json:"soft_limit"`
	Derived       map[string]int64 `json:"derived"`
}

// Containment says which mechanisms a kernel uses to end the processes its
// sessions start (kernel.info's containment object).
type Containment struct {
	Subreaper  bool   `json:"subreaper"`
	Pdeathsig  bool   `json:"pdeathsig"`
	Cgroup     string `json:"cgroup"` // "v2:<dir>", "v1:<dir>" or "none"
	Walk       bool   `json:"walk"`
	Supervisor bool   `json:"supervisor"`
}

// Implements reports whether the kernel lists method as implemented.
func (k *KernelInfo) Implements(method string) bool {
	for _, m := range k.Methods {
		if m.Name == method {
			return m.Implemented
		}
	}
	return false
}

// KernelInfo asks the kernel for its version, protocol revision, methods,
// features and limits. It works before attaching.
func (c *Client) KernelInfo(ctx context.Context) (*KernelInfo, error) {
	var r KernelInfo
	if err := c.Call(ctx, proto.MethodKernelInfo, nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Value formats for value.get.
const (
	FormatJSON   = "json"
	FormatRender = "render"
	FormatRaw    = "raw"
)

// ValueGetParams are the params of value.get. Slice, when non-nil, is a
// half-open [start, end) range.
type ValueGetParams struct {
	Ref    string    `json:"ref"`
	Path   string    `json:"path,omitempty"`
	Slice  *[2]int64 `json:"slice,omitempty"`
	Format string    `json:"format,omitempty"`
	Elide  *Elide    `json:"elide,omitempty"`
}

// ValueGetResult is the result of value.get. Which members are set depends
// on the format: Value for json, Render for render, Raw or RawBase64 (with
// Total and Truncated) for raw.
type ValueGetResult struct {
	Ref       string          `json:"ref"`
	Value     json.RawMessage `json:"value,omitempty"`
	Render    *string         `json:"render,omitempty"`
	Raw       *string         `json:"raw,omitempty"`
	RawBase64 string          `json:"raw_base64,omitempty"`
	Total     int64           `json:"total,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
}

// Decode decodes the result's value as a wire value.
func (r *ValueGetResult) Decode() (proto.Value, error) {
	if r.Value == nil {
		return nil, fmt.Errorf("client: value.get result has no value")
	}
	return DecodeValue(r.Value)
}

// ValueGet reads a stored value (out:N) or a projection of it.
func (c *Client) ValueGet(ctx context.Context, p ValueGetParams) (*ValueGetResult, error) {
	var r ValueGetResult
	if err := c.Call(ctx, proto.MethodValueGet, p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
