package proto

import (
	"encoding/json"
	"errors"
	"sync"
)

// Exec modes and positions.
const (
	ModeRun      = "run"
	ModePlan     = "plan"
	ModeApproved = "approved"
	PositionStmt = "stmt"
	PositionVal  = "value"
)

// Elide overrides value budgets for one call; zero fields keep defaults.
type Elide struct {
	MaxBytes int `json:"max_bytes,omitempty"`
	MaxRows  int `json:"max_rows,omitempty"`
	MaxItems int `json:"max_items,omitempty"`
}

// Display is how an exec's statement output is rendered: datetimes to
// TimePrecisionNS (0: all of it) and a table's `name` column left out
// where it repeats `path` (FoldNames), as the standalone shoal shows them.
type Display struct {
	TimePrecisionNS int64 `json:"time_precision_ns,omitempty"`
	FoldNames       bool  `json:"fold_names,omitempty"`
}

// ExecParams are the params of exec (and, with Mode "approved", what
// plan.apply runs). Zero fields are omitted, so the kernel defaults apply
// (mode "run", position "stmt"). Background is Async under the name the
// MCP tool gives it.
type ExecParams struct {
	Src        string `json:"src"`
	Mode       string `json:"mode,omitempty"`
	Position   string `json:"position,omitempty"`
	Async      bool   `json:"async,omitempty"`
	Background bool   `json:"background,omitempty"`
	TimeoutMS  int64  `json:"timeout_ms,omitempty"`
	Elide      *Elide `json:"elide,omitempty"`
	PlanRef    string `json:"plan_ref,omitempty"`
	// Display asks for statement output rendered for a person (see
	// Display); nil: the plain display.
	Display *Display `json:"display,omitempty"`
	// Watch (an addition) subscribes the connection sending a
	// synchronous exec (or one with timeout_ms) to the exec's task
	// channel while its task runs, so its output events arrive as it
	// prints (client.ExecWatch).
	Watch bool `json:"watch,omitempty"`

	has execHas // the members present when decoded
}

type execHas struct{ src, timeout, planRef bool }

// HasSrc reports whether the decoded params held "src" (it is required).
func (p *ExecParams) HasSrc() bool { return p.has.src }

// HasTimeout reports whether the decoded params held "timeout_ms" (0 is
// not its absence: it is out of range).
func (p *ExecParams) HasTimeout() bool { return p.has.timeout }

// HasPlanRef reports whether the decoded params held "plan_ref" (an empty
// ref names no plan; an absent one asks for any approved plan of the
// source).
func (p *ExecParams) HasPlanRef() bool { return p.has.planRef }

// SetSrc sets Src as decoded params holding it would.
func (p *ExecParams) SetSrc(src string) { p.Src, p.has.src = src, true }

// SetTimeout sets TimeoutMS as decoded params holding it would.
func (p *ExecParams) SetTimeout(ms int64) { p.TimeoutMS, p.has.timeout = ms, true }

// SetPlanRef sets PlanRef as decoded params holding it would.
func (p *ExecParams) SetPlanRef(ref string) { p.PlanRef, p.has.planRef = ref, true }

// execParams is ExecParams as decoded: pointers record presence. (It has
// the name the kernel's own struct had, so that a member of the wrong type
// is worded in INVALID_PARAMS as it was.)
type execParams struct {
	*execFields
	Src       *string `json:"src"`
	TimeoutMS *int64  `json:"timeout_ms"`
	PlanRef   *string `json:"plan_ref"`
}

type execFields ExecParams

// execDecoders keeps the decoding wrappers, so a decode allocates no more
// than decoding into the fields directly would.
var execDecoders = sync.Pool{New: func() any { return new(execParams) }}

// UnmarshalJSON decodes the params, recording whether src, timeout_ms and
// plan_ref were present.
func (p *ExecParams) UnmarshalJSON(b []byte) error {
	*p = ExecParams{}
	w := execDecoders.Get().(*execParams)
	*w = execParams{execFields: (*execFields)(p)}
	err := json.Unmarshal(b, w)
	p.has = execHas{w.Src != nil, w.TimeoutMS != nil, w.PlanRef != nil}
	p.Src, p.TimeoutMS, p.PlanRef = deref(w.Src), deref(w.TimeoutMS), deref(w.PlanRef)
	*w = execParams{}
	execDecoders.Put(w)
	return err
}

// ExecValue is exec's answer for a run that completed: the transcript
// ref, the value (a wire value, elided past the budgets) and its render.
type ExecValue struct {
	Ref    string          `json:"ref"`
	Value  json.RawMessage `json:"value"`
	Render string          `json:"render"`
	// Exit is the status an `exit` in the source asked for (the session
	// itself goes on); nil when it did not exit.
	Exit *int `json:"exit,omitempty"`
	// Cwd is the session's directory once the exec ended.
	Cwd string `json:"cwd,omitempty"`
}

// TaskStarted is exec's answer for async work and for a timeout_ms that
// expired: the task and its event channel.
type TaskStarted struct {
	Task     string `json:"task"`
	Events   string `json:"events"`
	TimedOut bool   `json:"timed_out,omitempty"`
}

// PlanAnswer is exec's answer in mode "plan": the stored plan.
type PlanAnswer struct {
	PlanRef         string   `json:"plan_ref"`
	Effects         []Effect `json:"effects"`
	Reversibility   string   `json:"reversibility"`
	Opaque          bool     `json:"opaque"`
	Verdict         string   `json:"verdict"`
	Reasons         []string `json:"reasons,omitempty"`
	State           string   `json:"state"`
	ApprovalPending bool     `json:"approval_pending"`
	Notes           []string `json:"notes,omitempty"`
}

// Effect is one effect of a derived plan.
type Effect struct {
	Kind    string   `json:"kind"`
	Path    string   `json:"path,omitempty"`
	Program string   `json:"program,omitempty"`
	Argv    []string `json:"argv,omitempty"`
	Name    string   `json:"name,omitempty"`
	Dynamic bool     `json:"dynamic,omitempty"`
}

// ExecResult is the result of exec as a client decodes it: one of the three
// shapes ExecValue (Ref, Value, Render), TaskStarted (Task, Events,
// TimedOut) for async or timed-out work, or PlanAnswer (PlanRef, Effects,
// ...) for mode "plan". Its members are exactly theirs (a test checks).
type ExecResult struct {
	Ref    string          `json:"ref,omitempty"`
	Value  json.RawMessage `json:"value,omitempty"`
	Render string          `json:"render,omitempty"`
	Exit   *int            `json:"exit,omitempty"`
	Cwd    string          `json:"cwd,omitempty"`

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
func (r *ExecResult) Decode() (Value, error) {
	if r.Value == nil {
		return nil, errors.New("exec result has no value")
	}
	return DecodeWire(r.Value)
}

// RaisedData is the data of a RAISED error: the language error stored at
// Ref (and URI), its code, span and hint; Status and Stderr (wire values)
// for a failed command.
type RaisedData struct {
	Ref    string          `json:"ref"`
	URI    string          `json:"uri"`
	Code   string          `json:"code"`
	Span   *Span           `json:"span"`
	Hint   *string         `json:"hint"`
	Status json.RawMessage `json:"status,omitempty"`
	Stderr json.RawMessage `json:"stderr,omitempty"`
	// Cwd is the session's directory once the exec ended.
	Cwd string `json:"cwd,omitempty"`
}

// VerdictData is the data of an exec refused by policy (LEASH_DENIED) or
// held for approval (APPROVAL_REQUIRED): the verdict, the effects the plan
// needed and why.
type VerdictData struct {
	Verdict string   `json:"verdict"`
	Effects []Effect `json:"effects"`
	Reasons []string `json:"reasons"`
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

	has valueGetHas // what decoding saw
}

type valueGetHas struct {
	ref      bool
	slice    bool // a slice member, not null
	badSlice bool // a slice of other than two numbers
}

// HasRef reports whether the decoded params held "ref" (it is required).
func (p *ValueGetParams) HasRef() bool { return p.has.ref }

// SliceGiven reports whether the decoded params held a slice; when it was
// not two numbers Slice is nil and BadSlice is true.
func (p *ValueGetParams) SliceGiven() bool { return p.has.slice }

// BadSlice reports a decoded slice of other than two elements.
func (p *ValueGetParams) BadSlice() bool { return p.has.badSlice }

type valueGetParams struct {
	*valueGetFields
	Ref   *string `json:"ref"`
	Slice []int64 `json:"slice"`
}

type valueGetFields ValueGetParams

// UnmarshalJSON decodes the params, recording whether ref and slice were
// present and whether slice had two elements.
func (p *ValueGetParams) UnmarshalJSON(b []byte) error {
	*p = ValueGetParams{}
	w := valueGetParams{valueGetFields: (*valueGetFields)(p)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p.Ref, p.has.ref = deref(w.Ref), w.Ref != nil
	if w.Slice != nil {
		p.has.slice = true
		if len(w.Slice) == 2 {
			p.Slice = &[2]int64{w.Slice[0], w.Slice[1]}
		} else {
			p.has.badSlice = true
		}
	}
	return nil
}

// ValueGetResult is the result of value.get as a client decodes it: one of
// ValueJSON (format json), ValueRender (render) or ValueRaw (raw). Its
// members are exactly theirs (a test checks).
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
func (r *ValueGetResult) Decode() (Value, error) {
	if r.Value == nil {
		return nil, errors.New("value.get result has no value")
	}
	return DecodeWire(r.Value)
}

// ValueJSON is value.get's answer in format json: the wire value.
type ValueJSON struct {
	Ref   string          `json:"ref"`
	Value json.RawMessage `json:"value"`
}

// ValueRender is value.get's answer in format render.
type ValueRender struct {
	Ref    string `json:"ref"`
	Render string `json:"render"`
}

// ValueRaw is value.get's answer in format raw: a string's text (Raw) or
// bytes' base64 (RawBase64); Total counts characters for strings and
// bytes for bytes, like slice.
type ValueRaw struct {
	Ref       string  `json:"ref"`
	Raw       *string `json:"raw,omitempty"`
	RawBase64 *string `json:"raw_base64,omitempty"`
	Total     int     `json:"total"`
	Truncated bool    `json:"truncated"`
}
