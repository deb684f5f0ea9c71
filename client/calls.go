package client

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// The typed calls of the methods methods.go, events.go, journal.go and
// subscribe.go do not cover: with them every method of proto's method
// table has one (a test checks).

// SessionEnv lists the session's environment: every name, and the values
// the principal's grants let it read.
func (c *Client) SessionEnv(ctx context.Context) (*proto.EnvResult, error) {
	return call[proto.EnvResult](ctx, c, proto.MethodSessionEnv, nil)
}

// SessionReef reports the tools Reef binds in the session's directory,
// without running or writing anything.
func (c *Client) SessionReef(ctx context.Context) (*proto.ReefResult, error) {
	return call[proto.ReefResult](ctx, c, proto.MethodSessionReef, nil)
}

// Complete offers completions of src at cursor, a byte offset (negative:
// the end of src). It works before attaching, knowing only the language.
func (c *Client) Complete(ctx context.Context, src string, cursor int) (*proto.CompleteResult, error) {
	p := proto.CompleteParams{Src: &src}
	if cursor >= 0 {
		p.Cursor = &cursor
	}
	return call[proto.CompleteResult](ctx, c, proto.MethodComplete, p)
}

// Explain derives, without running anything, what src would do in the
// session: its AST, effects, reversibility and a descriptive fingerprint.
func (c *Client) Explain(ctx context.Context, src string) (*proto.ExplainResult, error) {
	return call[proto.ExplainResult](ctx, c, proto.MethodExplain, proto.ExplainParams{Src: &src})
}

// ExplainAST is Explain of a program given as its ast_version 2 JSON.
func (c *Client) ExplainAST(ctx context.Context, ast json.RawMessage) (*proto.ExplainResult, error) {
	return call[proto.ExplainResult](ctx, c, proto.MethodExplain, proto.ExplainParams{AST: ast})
}

// BlobGet reads a blob a readable journal entry names: length bytes from
// offset (length 0: as much as one answer carries), or, when both are 0,
// the whole blob, decoded when it is JSON.
func (c *Client) BlobGet(ctx context.Context, hash string, offset, length int64) (*proto.BlobResult, error) {
	p := proto.BlobGetParams{Hash: &hash}
	if offset != 0 {
		p.Offset = &offset
	}
	if length != 0 {
		p.Length = &length
	}
	return call[proto.BlobResult](ctx, c, proto.MethodBlobGet, p)
}

// TaskList lists the session's tasks.
func (c *Client) TaskList(ctx context.Context) (*proto.TaskList, error) {
	return call[proto.TaskList](ctx, c, proto.MethodTaskList, nil)
}

// TaskGet returns a task's record.
func (c *Client) TaskGet(ctx context.Context, task string) (*proto.TaskRecord, error) {
	return c.task(ctx, proto.MethodTaskGet, task, nil)
}

// TaskAwait waits for a task to end and returns its record; with a
// timeout above 0 it returns when that expires, the record then having
// TimedOut set.
func (c *Client) TaskAwait(ctx context.Context, task string, timeout time.Duration) (*proto.TaskRecord, error) {
	var ms *int64
	if timeout > 0 {
		n := max(timeout.Milliseconds(), 1)
		ms = &n
	}
	return c.task(ctx, proto.MethodTaskAwait, task, ms)
}

// TaskCancel cancels a task, ending every process it started.
func (c *Client) TaskCancel(ctx context.Context, task string) (*proto.TaskRecord, error) {
	return c.task(ctx, proto.MethodTaskCancel, task, nil)
}

// TaskSuspend holds a running task.
func (c *Client) TaskSuspend(ctx context.Context, task string) (*proto.TaskRecord, error) {
	return c.task(ctx, proto.MethodTaskSuspend, task, nil)
}

// TaskResume lets a held task go on.
func (c *Client) TaskResume(ctx context.Context, task string) (*proto.TaskRecord, error) {
	return c.task(ctx, proto.MethodTaskResume, task, nil)
}

func (c *Client) task(ctx context.Context, method, task string, timeoutMS *int64) (*proto.TaskRecord, error) {
	return call[proto.TaskRecord](ctx, c, method, proto.TaskParams{Task: &task, TimeoutMS: timeoutMS})
}

// PlanGet returns the caller's stored plan.
func (c *Client) PlanGet(ctx context.Context, ref string) (*proto.PlanRecord, error) {
	return call[proto.PlanRecord](ctx, c, proto.MethodPlanGet, proto.PlanRefParams{PlanRef: &ref})
}

// PlanList lists the caller's plans, oldest first.
func (c *Client) PlanList(ctx context.Context) (*proto.PlanList, error) {
	return call[proto.PlanList](ctx, c, proto.MethodPlanList, nil)
}

// PlanApply runs the caller's approved (or allowed) plan once, answering
// what exec answers.
func (c *Client) PlanApply(ctx context.Context, ref string) (*ExecResult, error) {
	return call[ExecResult](ctx, c, proto.MethodPlanApply, proto.PlanRefParams{PlanRef: &ref})
}

// CapRequest is an approver's decision on another principal's plan:
// approve it (covering the effect kinds given, when any) or, with deny,
// deny it.
func (c *Client) CapRequest(ctx context.Context, ref string, effects []string, deny bool) (*proto.CapRequestResult, error) {
	p := proto.CapRequestParams{PlanRef: &ref, Deny: deny}
	for _, e := range effects {
		raw, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("client: cap.request: %w", err)
		}
		p.Effects = append(p.Effects, raw)
	}
	return call[proto.CapRequestResult](ctx, c, proto.MethodCapRequest, p)
}

// PTYOpen starts a program on a pseudo-terminal.
func (c *Client) PTYOpen(ctx context.Context, p proto.PTYOpenParams) (*proto.PTYSummary, error) {
	return call[proto.PTYSummary](ctx, c, proto.MethodPTYOpen, p)
}

// PTYSend types input to a PTY's program: a string, or a list of strings
// and {"key": NAME} objects.
func (c *Client) PTYSend(ctx context.Context, id string, input any) (*proto.PTYSent, error) {
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("client: pty.send: %w", err)
	}
	return call[proto.PTYSent](ctx, c, proto.MethodPTYSend, proto.PTYSendParams{PTYSelector: proto.PTYSelector{PtyID: &id}, Input: raw})
}

// PTYRead reads a PTY's screen.
func (c *Client) PTYRead(ctx context.Context, p proto.PTYReadParams) (*proto.PTYScreen, error) {
	return call[proto.PTYScreen](ctx, c, proto.MethodPTYRead, p)
}

// PTYResize resizes a PTY's terminal.
func (c *Client) PTYResize(ctx context.Context, id string, cols, rows int) (*proto.PTYSummary, error) {
	return call[proto.PTYSummary](ctx, c, proto.MethodPTYResize, proto.PTYResizeParams{PTYSelector: proto.PTYSelector{PtyID: &id}, Cols: &cols, Rows: &rows})
}

// PTYClose ends a PTY's program and returns how it exited, once reaped.
func (c *Client) PTYClose(ctx context.Context, id string) (*proto.PTYClosed, error) {
	return call[proto.PTYClosed](ctx, c, proto.MethodPTYClose, proto.PTYSelector{PtyID: &id})
}

// PTYList lists the session's PTYs.
func (c *Client) PTYList(ctx context.Context) (*proto.PTYList, error) {
	return call[proto.PTYList](ctx, c, proto.MethodPTYList, nil)
}

// TaskInterrupted is the state of a task that was running when its kernel
// stopped; a kernel restarted on the same state directory reports it so,
// its output still readable with TaskOutput.
const TaskInterrupted = proto.TaskInterrupted

// TaskEnded reports whether a task record is in a terminal state
// (cancelled, failed, completed or interrupted).
func TaskEnded(r *proto.TaskRecord) bool { return r != nil && proto.TaskTerminal(r.State) }
