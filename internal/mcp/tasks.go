package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/proto"
)

// The MCP tasks extension (io.modelcontextprotocol/tasks, revision
// 2026-07-28), which the Go SDK lacks, served through its custom-method
// API and mapped onto kernel tasks.
//
// A client declares the extension in its capabilities (at initialize, or
// per request in _meta's io.modelcontextprotocol/clientCapabilities). A
// synchronous shoal_exec from such a client that outlives ForegroundWait
// (the moment the kernel hands the run over as a task) answers a
// CreateTaskResult (resultType "task") whose taskId is the kernel task's
// id, instead of holding the call open. tasks/get reads the kernel task
// (task.await with no wait): working while it runs, then completed with
// the call's result (a failed run is a completed task whose result is the
// tool error, as the extension requires), or cancelled. tasks/cancel is
// task.cancel, which ends the run's whole process tree. The facade keeps
// no task state of its own: a task lives as long as the kernel keeps it,
// so ttlMs is null. Clients without the extension are served as before.

// TasksExtension is the extension's identifier.
const TasksExtension = "io.modelcontextprotocol/tasks"

// relatedTaskKey names the task a result belongs to in its _meta.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// codeMissingCapability is the extension's error for a client that did
// not declare it.
const codeMissingCapability = -32021

// taskParams are the params of tasks/get, tasks/cancel and tasks/update.
type taskParams struct {
	sdk.ParamsBase
	TaskID         string          `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses,omitempty"`
}

// taskAnswer is a Task (tasks/get, CreateTaskResult) or, with only
// ResultType, the acknowledgement of tasks/cancel and tasks/update.
type taskAnswer struct {
	sdk.ResultBase
	ResultType     string          `json:"resultType"`
	TaskID         string          `json:"taskId,omitempty"`
	Status         string          `json:"status,omitempty"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt,omitempty"`
	LastUpdatedAt  string          `json:"lastUpdatedAt,omitempty"`
	PollIntervalMs int64           `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
}

// MarshalJSON writes ttlMs as null on a Task (the kernel keeps a task as
// long as it keeps it) and leaves it out of an acknowledgement.
func (t *taskAnswer) MarshalJSON() ([]byte, error) {
	type plain taskAnswer
	b, err := json.Marshal((*plain)(t))
	if err != nil || t.TaskID == "" {
		return b, err
	}
	return append(b[:len(b)-1], `,"ttlMs":null}`...), nil
}

// taskSink carries, through a tools/call's context, the kernel task the
// call became when its client declared the extension.
type taskSink struct {
	mu  sync.Mutex
	rec *proto.TaskRecord
}

type taskSinkKey struct{}

// handOver records rec as the task the call became, when the call's
// client takes tasks; it reports whether it did.
func handOver(ctx context.Context, rec *proto.TaskRecord) bool {
	s, _ := ctx.Value(taskSinkKey{}).(*taskSink)
	if s == nil {
		return false
	}
	s.mu.Lock()
	s.rec = rec
	s.mu.Unlock()
	return true
}

// takesTasks reports whether the call's client declared the extension.
func takesTasks(ctx context.Context) bool {
	s, _ := ctx.Value(taskSinkKey{}).(*taskSink)
	return s != nil
}

// addTasks serves the extension's methods and turns a tools/call that
// became a task into its CreateTaskResult.
func (f *Facade) addTasks() error {
	for name, h := range map[string]func(context.Context, *sdk.ServerSession, *taskParams) (*taskAnswer, error){
		"tasks/get":    f.tasksGet,
		"tasks/cancel": f.tasksCancel,
		"tasks/update": f.tasksUpdate,
	} {
		if err := sdk.AddReceivingCustomMethod(f.srv, name, h); err != nil {
			return fmt.Errorf("mcp: %s: %w", name, err)
		}
	}
	f.srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method != "tools/call" || !declaresTasks(req.GetSession(), req.GetParams()) {
				return next(ctx, method, req)
			}
			sink := &taskSink{}
			res, err := next(context.WithValue(ctx, taskSinkKey{}, sink), method, req)
			sink.mu.Lock()
			rec := sink.rec
			sink.mu.Unlock()
			if err != nil || rec == nil {
				return res, err
			}
			t := f.taskOf(rec)
			t.ResultType = "task"
			t.Meta = sdk.Meta{relatedTaskKey: map[string]any{"taskId": rec.Task}}
			return t, nil
		}
	})
	return nil
}

// declaresTasks reports whether a request's client declared the
// extension: per request in _meta, or at initialize.
func declaresTasks(s sdk.Session, p sdk.Params) bool {
	if p != nil {
		if caps, ok := p.GetMeta()[sdk.MetaKeyClientCapabilities].(map[string]any); ok {
			if ext, ok := caps["extensions"].(map[string]any); ok {
				if _, ok := ext[TasksExtension]; ok {
					return true
				}
			}
		}
	}
	ss, _ := s.(*sdk.ServerSession)
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil {
		return false
	}
	_, ok := ip.Capabilities.Extensions[TasksExtension]
	return ok
}

// taskRecord reads a kernel task for the extension's methods: the id
// must name a kernel task the session may see, else -32602.
func (f *Facade) taskRecord(ctx context.Context, ss *sdk.ServerSession, p *taskParams, read func(context.Context, string) (*proto.TaskRecord, error)) (*proto.TaskRecord, error) {
	if !declaresTasks(ss, p) {
		data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}})
		return nil, &jsonrpc.Error{Code: codeMissingCapability, Message: "missing required client capability: the " + TasksExtension + " extension", Data: data}
	}
	if !strings.HasPrefix(p.TaskID, "task:") || len(p.TaskID) > MaxIDBytes {
		return nil, &jsonrpc.Error{Code: proto.CodeInvalidParams, Message: "unknown task: a task id is task:N"}
	}
	rec, err := read(ctx, p.TaskID)
	if err != nil {
		var re *proto.RPCError
		if errors.As(err, &re) && (re.Code == proto.CodeUnknownTask || re.Code == proto.CodeInvalidParams) {
			return nil, &jsonrpc.Error{Code: proto.CodeInvalidParams, Message: "unknown task " + p.TaskID}
		}
		return nil, &jsonrpc.Error{Code: proto.CodeInternalError, Message: "task " + p.TaskID + ": " + err.Error()}
	}
	return rec, nil
}

// tasksGet answers tasks/get with the task's state and, once it ended,
// the call's result.
func (f *Facade) tasksGet(ctx context.Context, ss *sdk.ServerSession, p *taskParams) (*taskAnswer, error) {
	rec, err := f.taskRecord(ctx, ss, p, func(ctx context.Context, id string) (*proto.TaskRecord, error) {
		return f.c.TaskAwait(ctx, id, time.Millisecond) // the record with a running exec's output tail
	})
	if err != nil {
		return nil, err
	}
	t := f.taskOf(rec)
	t.ResultType = "complete"
	if t.Status == "completed" {
		res, _ := f.finished(ctx, rec, nil)
		b, err := json.Marshal(res)
		if err != nil {
			return nil, fmt.Errorf("task %s: its result: %w", rec.Task, err)
		}
		t.Result = b
	}
	return t, nil
}

// tasksCancel answers tasks/cancel: task.cancel, which ends the run's
// process tree; the task reads cancelled once it has.
func (f *Facade) tasksCancel(ctx context.Context, ss *sdk.ServerSession, p *taskParams) (*taskAnswer, error) {
	if _, err := f.taskRecord(ctx, ss, p, f.c.TaskCancel); err != nil {
		return nil, err
	}
	return &taskAnswer{ResultType: "complete"}, nil
}

// tasksUpdate answers tasks/update. The facade's tasks never ask for
// input, so every response is for a key not outstanding, which the
// extension says to ignore; the task must exist.
func (f *Facade) tasksUpdate(ctx context.Context, ss *sdk.ServerSession, p *taskParams) (*taskAnswer, error) {
	if _, err := f.taskRecord(ctx, ss, p, f.c.TaskGet); err != nil {
		return nil, err
	}
	return &taskAnswer{ResultType: "complete"}, nil
}

// taskOf is the extension's Task for a kernel task record.
func (f *Facade) taskOf(rec *proto.TaskRecord) *taskAnswer {
	started := time.Unix(0, rec.StartedNs).UTC()
	updated := time.Now().UTC()
	if rec.FinishedNs != nil {
		updated = time.Unix(0, *rec.FinishedNs).UTC()
	}
	t := &taskAnswer{
		TaskID:         rec.Task,
		CreatedAt:      started.Format(time.RFC3339Nano),
		LastUpdatedAt:  updated.Format(time.RFC3339Nano),
		PollIntervalMs: ProgressInterval.Milliseconds(),
	}
	switch rec.State {
	case "running", "cancelling":
		t.Status = "working"
		t.StatusMessage = fmt.Sprintf("%s %s for %.1fs", rec.Task, rec.State, updated.Sub(started).Seconds())
		if rec.Output != nil {
			if last := lastLine(rec.Output.Text); last != "" {
				t.StatusMessage += fmt.Sprintf("; %d bytes of output, last: %s", rec.Output.Bytes, last)
			}
		}
	case "cancelled":
		t.Status = "cancelled"
		t.StatusMessage = rec.Task + " was cancelled"
	case "interrupted":
		// The kernel stopped while it ran: it has no answer to give.
		t.Status = "failed"
		t.StatusMessage = rec.Task + " was interrupted: the kernel stopped while it ran; its output is readable"
	default: // completed, failed: the call has its answer
		t.Status = "completed"
		t.StatusMessage = rec.Task + " " + rec.State
	}
	return t
}
