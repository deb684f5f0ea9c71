package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// execArgs are shoal_exec's arguments, defaults already applied by the
// schema (mode run, position value).
type execArgs struct {
	Src        string       `json:"src"`
	Mode       string       `json:"mode"`
	Position   string       `json:"position"`
	Background bool         `json:"background"`
	TimeoutMS  int64        `json:"timeout_ms"`
	Elide      *proto.Elide `json:"elide,omitempty"`
}

// terminal reports whether a task record's state is final.
func terminal(r *proto.TaskRecord) bool {
	switch r.State {
	case "completed", "failed", "cancelled":
		return true
	}
	return false
}

// toolExec runs shoal_exec. A plan, a background start and a run that
// finishes within ForegroundWait are one exec call. A longer run is
// handed over by the kernel as a task (exec timeout_ms), which the call
// then awaits: reporting progress when the caller asked for it, and
// cancelling the task (and so its whole process tree) at once when the
// caller cancels the request.
func (f *Facade) toolExec(ctx context.Context, req *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, error) {
	a, ok := decodeExecArgs(args)
	if !ok {
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
	}
	p := proto.ExecParams{Src: a.Src, Mode: a.Mode, Position: a.Position, Background: a.Background, Elide: a.Elide}
	if a.Mode == client.ModePlan || a.Background {
		p.TimeoutMS = a.TimeoutMS
		var raw json.RawMessage
		if err := f.c.Call(ctx, proto.MethodExec, execCallParams(p), &raw); err != nil {
			if res, ok := f.approveInCall(ctx, req, a, err); ok {
				return res, nil
			}
			return f.execError(ctx, a, err)
		}
		return result(raw), nil
	}
	start := time.Now()
	var deadline time.Time // the caller's own timeout_ms, if any
	p.TimeoutMS = ForegroundWait.Milliseconds()
	if a.TimeoutMS > 0 {
		deadline = start.Add(time.Duration(a.TimeoutMS) * time.Millisecond)
		p.TimeoutMS = min(p.TimeoutMS, a.TimeoutMS)
	}
	// The exec itself is not abandoned when ctx ends: its answer comes
	// within ForegroundWait, and names the task to cancel. (It is given
	// up CancelSettle after ctx ends, should the kernel be unreachable.)
	ectx, stop := detach(ctx)
	defer stop()
	var raw json.RawMessage
	if err := f.c.Call(ectx, proto.MethodExec, execCallParams(p), &raw); err != nil {
		if res, ok := f.approveInCall(ctx, req, a, err); ok {
			return res, nil
		}
		return f.execError(ectx, a, err)
	}
	started, handed := startedTask(raw)
	if !handed {
		return result(raw), nil
	}
	if deadline.IsZero() && takesTasks(ctx) {
		// The client takes tasks (tasks.go): the call answers the task,
		// which it polls and cancels with tasks/get and tasks/cancel.
		if rec, err := f.c.TaskGet(ctx, started.Task); err == nil && handOver(ctx, rec) {
			return &sdk.CallToolResult{}, nil
		}
	}
	w := &watch{f: f, req: req, task: started.Task, start: start}
	w.begin(ctx)
	for {
		wait := w.pollEvery()
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return result(raw), nil // the caller's timeout: the task as exec gives it
			}
			wait = min(wait, left)
		}
		rec, err := f.await(ctx, started.Task, wait)
		if ctx.Err() != nil {
			return f.cancelTask(started.Task)
		}
		if err != nil {
			return toolError(err)
		}
		if terminal(rec) {
			w.output(ctx) // what it printed last, before the result
			return f.finished(context.WithoutCancel(ctx), rec, a.Elide)
		}
		if !w.output(ctx) && w.statusDue() {
			w.progress(ctx, rec)
		}
	}
}

// execError is the tool error of a failed exec: one the policy holds for
// approval goes to approvalRequired, any other is toolError's.
func (f *Facade) execError(ctx context.Context, a execArgs, err error) (*sdk.CallToolResult, error) {
	var re *proto.RPCError
	if errors.As(err, &re) && re.Code == proto.CodeApprovalRequired && a.Mode != client.ModePlan {
		return f.approvalRequired(ctx, a, re)
	}
	return toolError(err)
}

// detach is ctx without its cancellation, ended CancelSettle after ctx
// ends: for a call whose answer is needed to undo what the cancelled
// request started.
func detach(ctx context.Context) (context.Context, func()) {
	d, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var timer *time.Timer
	var mu sync.Mutex
	unwatch := context.AfterFunc(ctx, func() {
		mu.Lock()
		timer = time.AfterFunc(CancelSettle, cancel)
		mu.Unlock()
	})
	return d, func() {
		unwatch()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel()
	}
}

// await asks for the task's record, waiting at most d for it to finish;
// it returns early (with ctx.Err()) when ctx ends.
func (f *Facade) await(ctx context.Context, task string, d time.Duration) (*proto.TaskRecord, error) {
	type out struct {
		rec *proto.TaskRecord
		err error
	}
	ch := make(chan out, 1)
	go func() {
		rec, err := f.c.TaskAwait(context.WithoutCancel(ctx), task, max(d, time.Millisecond))
		ch <- out{rec, err}
	}()
	select {
	case o := <-ch:
		return o.rec, o.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// cancelTask cancels a task whose caller went away, and waits (bounded)
// for it to settle, so that the next call finds its processes gone.
func (f *Facade) cancelTask(task string) (*sdk.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), CancelSettle)
	defer cancel()
	if _, err := f.c.TaskCancel(ctx, task); err != nil {
		return toolError(err)
	}
	for ctx.Err() == nil {
		rec, err := f.await(ctx, task, CancelSettle)
		if err != nil {
			break
		}
		if terminal(rec) {
			break
		}
	}
	return toolError(proto.NewError(proto.CodeRaised, "cancelled", map[string]any{"code": "cancelled", "task": task}))
}

// finished answers a task that ran a synchronous shoal_exec to its end,
// in the shape exec would have answered: {ref, value, render} on success,
// RAISED with the stored error on failure.
func (f *Facade) finished(ctx context.Context, rec *proto.TaskRecord, elide *proto.Elide) (*sdk.CallToolResult, error) {
	ref := ""
	if rec.ResultRef != nil {
		ref = *rec.ResultRef
	}
	switch rec.State {
	case "completed":
		if ref == "" {
			return toolError(proto.NewError(proto.CodeInternalError, "the task finished without a result", map[string]any{"task": rec.Task}))
		}
		val, err := f.c.ValueGet(ctx, proto.ValueGetParams{Ref: ref, Elide: elide})
		if err != nil {
			return toolError(err)
		}
		rend, err := f.c.ValueGet(ctx, proto.ValueGetParams{Ref: ref, Format: proto.FormatRender})
		if err != nil {
			return toolError(err)
		}
		render := ""
		if rend.Render != nil {
			render = *rend.Render
		}
		return result(mustJSON(map[string]any{"ref": ref, "value": val.Value, "render": render, "task": rec.Task})), nil
	case "cancelled":
		return toolError(proto.NewError(proto.CodeRaised, "cancelled", map[string]any{"code": "cancelled", "task": rec.Task}))
	}
	msg := "failed"
	if rec.Error != nil {
		msg = *rec.Error
	}
	data := map[string]any{"task": rec.Task}
	if ref != "" {
		data["ref"], data["uri"] = ref, refURI(ref)
		if val, err := f.c.ValueGet(ctx, proto.ValueGetParams{Ref: ref}); err == nil {
			var e struct {
				Code string `json:"code"`
			}
			if json.Unmarshal(val.Value, &e) == nil && e.Code != "" {
				data["code"] = e.Code
			}
			data["error"] = val.Value
		}
	}
	return toolError(proto.NewError(proto.CodeRaised, msg, data))
}

// watch reports a long exec's progress to a caller that sent a progress
// token: the task, the time elapsed, and the last line of what it has
// printed so far (the kernel's task.await answers the tail of a running
// exec's output).
type watch struct {
	f     *Facade
	req   *sdk.CallToolRequest
	task  string
	start time.Time
	token any
	n     float64
	off   int64     // the task's output offset sent up to (progress_output.go)
	last  time.Time // when the last notification was sent
}

func (w *watch) begin(context.Context) {
	w.last = w.start
	if w.req != nil && w.req.Params != nil {
		w.token = w.req.Params.GetProgressToken()
	}
}

func (w *watch) progress(ctx context.Context, rec *proto.TaskRecord) {
	if w.token == nil {
		return
	}
	w.n++
	w.last = time.Now()
	msg := fmt.Sprintf("%s running for %.1fs", w.task, time.Since(w.start).Seconds())
	if rec != nil && rec.Output != nil {
		if last := lastLine(rec.Output.Text); last != "" {
			msg += fmt.Sprintf("; %d bytes of output, last: %s", rec.Output.Bytes, last)
		}
	}
	_ = w.req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
		ProgressToken: w.token, Progress: w.n, Message: msg,
	})
}

// lastLine is the last non-empty line of s, at most ProgressLineBytes of
// it (cut at a character).
func lastLine(s string) string {
	s = strings.TrimRight(s, "\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimRight(s, "\r")
	if len(s) > ProgressLineBytes {
		s = s[:ProgressLineBytes]
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}
