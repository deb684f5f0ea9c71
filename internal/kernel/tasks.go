package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/tasks"
	"github.com/shoalgo/shoal/proto"
)

// execDone is what an exec task's work returns: the answer it would have
// given inline and the transcript entry it wrote.
type execDone struct {
	res *execResult
	ref string
}

// taskStarted is exec's answer for work that runs (or keeps running) as a
// task.
type taskStarted = proto.TaskStarted

// taskEvent is a task record as the payload of a task.N event, encoded
// by hand: every change of every task (a synchronous exec is one) is
// published. Its shape is tasks.Record's MarshalJSON (a test compares
// them): finished_ns, result_ref and error null when absent, suspended,
// timed_out, foreground and language only when true, desc only when set.
type taskEvent tasks.Record

// AppendJSON appends the record's JSON encoding to b.
func (r taskEvent) AppendJSON(b []byte) []byte {
	b = append(b, `{"task":`...)
	b = proto.AppendString(b, r.Task)
	b = append(b, `,"session":`...)
	b = proto.AppendString(b, r.Session)
	b = append(b, `,"state":`...)
	b = proto.AppendString(b, string(r.State))
	b = append(b, `,"started_ns":`...)
	b = strconv.AppendInt(b, r.StartedNs, 10)
	b = append(b, `,"finished_ns":`...)
	if r.FinishedNs != 0 {
		b = strconv.AppendInt(b, r.FinishedNs, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"result_ref":`...)
	if r.ResultRef != "" {
		b = proto.AppendString(b, r.ResultRef)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"error":`...)
	if r.Err != nil {
		b = proto.AppendString(b, r.Err.Error())
	} else {
		b = append(b, "null"...)
	}
	if r.Suspended {
		b = append(b, `,"suspended":true`...)
	}
	if r.TimedOut {
		b = append(b, `,"timed_out":true`...)
	}
	if r.Foreground {
		b = append(b, `,"foreground":true`...)
	}
	if r.Language {
		b = append(b, `,"language":true`...)
	}
	if r.Desc != "" {
		b = append(b, `,"desc":`...)
		b = proto.AppendString(b, r.Desc)
	}
	return append(b, '}')
}

// wireSession connects a new session's task registry to the event bus:
// every change of a task record is published on its task.N channel.
func (s *Server) wireSession(sess *session) {
	scope := sess.scope()
	// The spare pipes it keeps for its next spawn are charged to the
	// kernel-wide budget of idle descriptors, as its scope's free leaves are.
	sess.later.ChargeTo(s.idleFDs)
	s.continueRefs(sess)
	s.bridgeSession(sess)
	if rh, ok := sess.host.(*reefHost); ok && rh.langTasks != nil {
		rh.langTasks.sess.Store(sess)
	}
	// Before its hook is set, the session gets back what an earlier
	// kernel kept of it (restore.go); every change is persisted too.
	s.restoreSession(sess)
	var names taskChannelName
	sess.tasks.OnChange(func(r tasks.Record) {
		s.persistTask(sess, r)
		s.publishTask(scope, &names, r)
	})
	sess.tasks.OnFinish(func(_ *tasks.Task, v any, _ error) string {
		if d, ok := v.(*execDone); ok {
			return d.ref
		}
		return ""
	})
	// Closing the session (lifecycle.go) gives back its memory budget,
	// ends its live streams, unhooks its bridge and frees its event scope.
	sess.onClose(sess.releaseMemory)
	// Its language tasks (spawn, &) are cancelled, their processes with them.
	sess.onClose(sess.interp.Close)
	sess.onClose(func() {
		sess.interp.Channels().SetForwarder(nil)
		if lc, ok := sess.host.(interface{ CloseLive() }); ok {
			lc.CloseLive()
		}
		s.bus.ForgetScope(scope)
	})
	// It also ends every process the session's commands started, and
	// their descendants (background ones left by finished commands too).
	sess.onClose(func() { sess.processes().Close() })
	// Its tasks' output spools go with their records.
	sess.onClose(func() {
		if s.outputs != nil {
			s.outputs.forgetSession(sess.key.principal, sess.key.name)
		}
		s.forgetRestartState(sess)
	})
	// Hooks run newest first: its PTYs are closed (their programs told to
	// end, given a grace, killed and reaped, their exits published) before
	// anything above.
	sess.ptys = &s.ptys
	sess.onClose(func() { s.ptys.closeSession(sess.key) })
}

// startExecTask runs p as a task of sess, taking over the turn tr. A
// foreground task is a synchronous exec: listed and cancellable while it
// runs, not retained after (see tasks.StartForeground). It runs on the
// calling goroutine and startExecTask returns once it has finished; stop
// ending first (the connection closed, the kernel shutting down) cancels
// it. Other tasks get a goroutine of their own and stop is not used.
//
// att is the attachment the exec came through: language tasks the exec
// starts are cancelled when it is cut (see langTaskHook).
// How startExecTask runs an exec's task.
type execTaskMode int

const (
	// execBackground: a retained task (async, background).
	execBackground execTaskMode = iota
	// execHere: a foreground task run on the calling goroutine (a
	// synchronous exec), cancelled when stop ends. An exec with timeout_ms
	// runs likewise but is detached at its timeout (execawait.go).
	execHere
)

func (s *Server) startExecTask(stop context.Context, sess *session, att *attachment, p *execParams, tr *turn, mode execTaskMode) (*tasks.Task, error) {
	work := s.execWork(sess, att, p, tr)
	var t *tasks.Task
	var err error
	switch mode {
	case execHere:
		t, err = sess.tasks.RunForeground(stop, sess.owner(), p.Src, work)
		s.forgetTaskOutput(sess, t) // finished, and not retained
	default:
		t, err = sess.tasks.Start(sess.owner(), p.Src, work)
	}
	if err != nil {
		tr.leave()
		if denied := exceededDenied(err); denied != nil {
			return nil, denied // live_tasks or foreground_tasks
		}
		return nil, proto.NewError(proto.CodeInternalError, "cannot start task: "+err.Error(), nil)
	}
	return t, nil
}

// execWork is the work of the task an exec runs as: the exec itself
// (runExec), with task.suspend's hold and the watch of exec's watch.
func (s *Server) execWork(sess *session, att *attachment, p *execParams, tr *turn) tasks.Work {
	return func(ctx context.Context) (any, error) {
		// task.suspend holds the evaluation at its next checkpoint and stops
		// every process it has running.
		pause := new(eval.Pause)
		release, _ := tasks.RegisterSuspender(ctx, pause)
		defer release()
		ctx = host.WithGroupHook(eval.WithPause(ctx, pause), suspendHook)
		ctx = withOrigin(ctx, att)
		if p.lead != nil && p.lead.leadHooks != nil {
			ctx = eval.WithLeadHooks(ctx, p.lead.leadHooks)
		}
		if p.watch != nil {
			defer p.watch(ctx)()
		}
		if p.later != nil {
			ctx = host.WithLater(ctx, p.later)
		}
		res, ref, err := s.runExec(ctx, sess, p, tr)
		return &execDone{res: res, ref: ref}, err
	}
}

// suspendHook makes each process group a task starts one of the task's
// Suspenders for as long as its child lives, so task.suspend stops it with
// SIGSTOP and task.resume continues it.
func suspendHook(ctx context.Context, pg host.ProcessGroup) func() {
	release, _ := tasks.RegisterSuspender(ctx, pg)
	return release
}

func started(t *tasks.Task, timedOut bool) *taskStarted {
	return &taskStarted{Task: t.ID(), Events: t.Record().Channel(), TimedOut: timedOut}
}

// execAnswer is the answer of the finished exec task t, as an exec run
// inline would give it.
func execAnswer(t *tasks.Task) (any, error) {
	v, _, err := t.Result()
	if err != nil {
		return nil, err
	}
	d, ok := v.(*execDone)
	if !ok || d.res == nil {
		return nil, proto.NewError(proto.CodeInternalError, "exec finished without a result", nil)
	}
	return d.res, nil
}

type taskParams = proto.TaskParams

// taskParams decodes a task selector.
func (c *call) taskParams() (*taskParams, error) {
	var p taskParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Task == nil {
		return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "task" is required`, nil)
	}
	if p.TimeoutMS != nil && (*p.TimeoutMS < 0 || *p.TimeoutMS > maxTimeout.Milliseconds()) {
		return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: timeout_ms must be between 0 and 86400000", nil)
	}
	return &p, nil
}

// taskError maps a registry error to its RPC error.
func taskError(method, id string, err error) error {
	switch {
	case errors.Is(err, tasks.ErrUnknownTask):
		return proto.NewError(proto.CodeUnknownTask, "unknown task "+quoteRef(id), nil)
	case errors.Is(err, tasks.ErrControlUnavailable):
		return proto.NewError(proto.CodeTaskControlUnavailable, method+" is not available for "+id+": the task is not running, or has not started its work yet", nil)
	}
	return proto.NewError(proto.CodeInternalError, method+": "+err.Error(), nil)
}

func handleTaskGet(_ context.Context, c *call) (any, error) {
	p, err := c.taskParams()
	if err != nil {
		return nil, err
	}
	rec, err := c.att.sess.tasks.Get(c.att.sess.owner(), *p.Task)
	if err != nil {
		return nil, taskError(c.req.Method, *p.Task, err)
	}
	return withOutput(c.att.sess.tasks, c.att.sess.owner(), rec)
}

// taskOutput is what a running exec task has printed so far, in task.get's
// answer: the last TaskOutputTail bytes of the output it keeps (cut at a
// character), the bytes printed in all, and whether text is not all of it.
type taskOutput = proto.TaskOutput

// withOutput is rec's wire JSON with an "output" field added while the
// task runs and has printed something (task.get, and task.await that
// timed out).
func withOutput(reg *tasks.Registry, owner tasks.Owner, rec tasks.Record) (any, error) {
	text, total, truncated, ok, err := reg.Output(owner, rec.Task)
	if err != nil || !ok || total == 0 {
		return rec, nil
	}
	if len(text) > TaskOutputTail {
		text, truncated = tailUTF8(text, TaskOutputTail), true
	}
	w := rec.Wire()
	w.Output = &taskOutput{Text: text, Bytes: total, Truncated: truncated}
	// Marshalled here, as Record.MarshalJSON is, so the answer's bytes
	// are the same whether a task has output or not.
	b, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}

// tailUTF8 is the last at most n bytes of s, starting at a character.
func tailUTF8(s string, n int) string {
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}

func handleTaskList(_ context.Context, c *call) (any, error) {
	var p struct{}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	return map[string]any{"tasks": c.att.sess.tasks.List(c.att.sess.owner())}, nil
}

func handleTaskAwait(ctx context.Context, c *call) (any, error) {
	p, err := c.taskParams()
	if err != nil {
		return nil, err
	}
	var timeout time.Duration
	if p.TimeoutMS != nil {
		timeout = max(time.Duration(*p.TimeoutMS)*time.Millisecond, time.Millisecond)
	}
	rec, err := c.att.sess.tasks.Await(ctx, c.att.sess.owner(), *p.Task, timeout)
	if err != nil {
		if errors.Is(err, tasks.ErrUnknownTask) {
			return nil, taskError(c.req.Method, *p.Task, err)
		}
		return nil, proto.NewError(proto.CodeInternalError, "await abandoned: "+err.Error(), nil)
	}
	return withOutput(c.att.sess.tasks, c.att.sess.owner(), rec)
}

func handleTaskCancel(_ context.Context, c *call) (any, error) {
	p, err := c.taskParams()
	if err != nil {
		return nil, err
	}
	rec, err := c.att.sess.tasks.Cancel(c.att.sess.owner(), *p.Task)
	if err != nil {
		return nil, taskError(c.req.Method, *p.Task, err)
	}
	return rec, nil
}

func handleTaskSuspend(_ context.Context, c *call) (any, error) {
	p, err := c.taskParams()
	if err != nil {
		return nil, err
	}
	rec, err := c.att.sess.tasks.Suspend(c.att.sess.owner(), *p.Task)
	if err != nil {
		return nil, taskError(c.req.Method, *p.Task, err)
	}
	return rec, nil
}

func handleTaskResume(_ context.Context, c *call) (any, error) {
	p, err := c.taskParams()
	if err != nil {
		return nil, err
	}
	rec, err := c.att.sess.tasks.Resume(c.att.sess.owner(), *p.Task)
	if err != nil {
		return nil, taskError(c.req.Method, *p.Task, err)
	}
	return rec, nil
}
