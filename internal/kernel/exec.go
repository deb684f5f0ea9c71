package kernel

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/tasks"
	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// execParams are exec's params (proto.ExecParams) and what the kernel
// learns of the exec before it runs.
type execParams struct {
	proto.ExecParams

	// prog is the program leashCheck judged, which then runs; nil when
	// no plan was derived (the source is parsed when it runs).
	prog *syntax.Program
	// plan is prog's derived plan, when one was derived (leashCheck, an
	// approved run, or the journal's row); nil otherwise.
	plan *leash.Plan
	// approve, when set, authorizes an approved exec through its stored
	// plan once its turn comes, inside its task (plans.go); it sets prog.
	approve func(context.Context) error
	// watch, when set (exec's watch), subscribes the caller's connection
	// to the exec's task channel while it runs (execwatch.go).
	watch func(context.Context) func()
	// later, for an exec answered on the goroutine that runs it, is where
	// its spawns leave their tails until the answer is sent (later.go).
	later *host.Later
	// lead is the connection the exec came in on: its evaluation looks at
	// the age of the request leading there while it computes (leadCheck).
	lead *conn
}

// execResult is exec's answer for a run that completed.
type execResult = proto.ExecValue

// raisedData is the data of a RAISED error.
type raisedData = proto.RaisedData

// runMode reports whether p runs in mode "run", the mode judged by policy
// before it runs (leashCheck).
func (p *execParams) runMode() bool { return p.Mode == "" || p.Mode == "run" }

// maxTimeout bounds timeout_ms so the deadline arithmetic cannot overflow.
const maxTimeout = 24 * time.Hour

func (p *execParams) check() error {
	bad := func(msg string) error { return proto.NewError(proto.CodeInvalidParams, "invalid params: "+msg, nil) }
	if !p.HasSrc() {
		return bad(`"src" is required`)
	}
	switch p.Mode {
	case "", "run", "plan", "approved":
	default:
		return bad(fmt.Sprintf("unknown mode %q (want run, plan or approved)", p.Mode))
	}
	switch p.Position {
	case "", "stmt", "value":
	default:
		return bad(fmt.Sprintf("unknown position %q (want stmt or value)", p.Position))
	}
	if (p.Async || p.Background) && p.HasTimeout() {
		return bad("async and timeout_ms cannot be combined; use task.await with timeout_ms")
	}
	if p.HasTimeout() && (p.TimeoutMS <= 0 || p.TimeoutMS > maxTimeout.Milliseconds()) {
		return bad("timeout_ms must be between 1 and 86400000")
	}
	return checkElide(p.Elide)
}

// execFlat are the members of exec's params read without reflection
// (proto.FlatParams): src, mode, position and timeout_ms.
func execFlat() [4]proto.FlatParam {
	return [4]proto.FlatParam{{Name: "src"}, {Name: "mode"}, {Name: "position"}, {Name: "timeout_ms", Int: true}}
}

func handleExec(ctx context.Context, c *call) (any, error) {
	tr := c.turn
	var p execParams
	if src, ok := proto.SoleStringParam(c.req.Params, "src"); ok {
		// The common request, {"src": …} alone, read without reflection;
		// every other member has its zero value, which check accepts.
		p.SetSrc(src)
	} else if m := execFlat(); proto.FlatParams(c.req.Params, m[:]) && m[0].Set {
		// The MCP facade's request, {"src", "mode", "position",
		// "timeout_ms"}, read likewise and checked as decoded ones are.
		p.SetSrc(m[0].Str)
		p.Mode, p.Position = m[1].Str, m[2].Str
		if m[3].Set {
			p.SetTimeout(m[3].N)
		}
		if err := p.check(); err != nil {
			tr.leave()
			return nil, err
		}
	} else {
		if err := c.params(&p.ExecParams); err != nil {
			tr.leave()
			return nil, err
		}
		if err := p.check(); err != nil {
			tr.leave()
			return nil, err
		}
	}
	if p.Watch && !p.Async && !p.Background {
		p.watch = c.watchExec
	}
	p.lead = c.conn
	if !p.runMode() {
		// A plan's or an approved exec's path commits and waits outside
		// the evaluation's hooks: the precise hand-over from its start.
		c.conn.leadWait()
	}
	switch p.Mode {
	case "plan":
		return c.execPlan(ctx, &p)
	case "approved":
		if p.Async || p.Background {
			// As an async run: judged before its task starts, so that a
			// refusal is the exec's own answer.
			if err := c.authorizeApproved(ctx, &p, false); err != nil {
				c.conn.srv.journalRow(c.att.sess, &p).refused(&p, err)
				tr.leave()
				return nil, err
			}
		} else {
			p.approve = func(ctx context.Context) error { return c.authorizeApproved(ctx, &p, false) }
		}
	}
	srv, sess := c.conn.srv, c.att.sess
	if (p.Async || p.Background) && p.runMode() {
		// Judged once its turn comes and before its task starts, so that a
		// refusal is the exec's own answer; a synchronous exec (and one
		// with timeout_ms) is judged in its task, which task.list shows
		// and task.cancel stops while it waits (runExec).
		if err := leashCheck(ctx, sess, &p, tr); err != nil {
			srv.journalRow(sess, &p).refused(&p, err)
			tr.leave()
			return nil, err
		}
	}
	switch {
	case p.Async || p.Background:
		t, err := srv.startExecTask(ctx, sess, c.att, &p, tr, execBackground)
		if err != nil {
			return nil, err
		}
		c.att.bindTask(sess, t)
		return started(t, false), nil
	case p.HasTimeout():
		// On this goroutine, handed over as a task if it runs past
		// timeout_ms (execawait.go).
		return c.runAwaited(ctx, &p)
	}
	return c.runSync(ctx, &p)
}

// execFrame is an exec's answer res as the whole frame answering c, built
// by hand (valueAnswer), when it is an exec's result; any other answer,
// and a result too large for a frame, is left to reply.
func (c *call) execFrame(res any, err error) (any, error) {
	if r, ok := res.(*execResult); ok && err == nil {
		if f, ferr := valueAnswer(r, c.req); ferr == nil {
			return f, nil
		}
	}
	return res, err
}

// runSync runs a synchronous exec as a foreground task, so that task.list
// shows it and task.cancel (from any connection of the session) stops it;
// the answer is the exec's own. It runs on this goroutine.
func (c *call) runSync(ctx context.Context, p *execParams) (any, error) {
	p.later = &c.att.sess.later
	t, err := c.conn.srv.startExecTask(ctx, c.att.sess, c.att, p, c.turn, execHere)
	if err != nil {
		return nil, err
	}
	return c.execFrame(execAnswer(t))
}

// valueAnswer builds the whole success frame of an exec answering req,
// written by hand: value is already compact wire JSON. A result too large
// for a frame fails, and the caller leaves it to reply to word the error.
func valueAnswer(r *execResult, req *proto.Request) (answerFrame, error) {
	return buildAnswer(req, 80+len(r.Ref)+len(r.Value)+len(r.Render)+len(r.Cwd), func(b []byte, limit int) ([]byte, error) {
		b = append(b, `{"ref":`...)
		b = proto.AppendString(b, r.Ref)
		b = append(b, `,"value":`...)
		if len(r.Value) == 0 {
			b = append(b, "null"...)
		} else {
			b = append(b, r.Value...)
		}
		b = append(b, `,"render":`...)
		b = proto.AppendString(b, r.Render)
		if r.Exit != nil {
			b = append(b, `,"exit":`...)
			b = strconv.AppendInt(b, int64(*r.Exit), 10)
		}
		if r.Cwd != "" {
			b = append(b, `,"cwd":`...)
			b = proto.AppendString(b, r.Cwd)
		}
		b = append(b, '}')
		if len(b) > limit {
			return b, errExecFrameTooLarge
		}
		return b, nil
	})
}

// errExecFrameTooLarge is answer's failure for a result past proto.MaxFrame.
var errExecFrameTooLarge = errors.New("exec answer exceeds the frame bound")

// runExec waits for the turn, runs the source in the session, stores the
// value (or the raised error) in the transcript and publishes transcript
// and render events. It always leaves the turn: a synchronous exec when
// it ends, so pipelined execs take effect in request order; an async one
// as soon as it holds the session lock, so that later requests run beside
// it (see docs/architecture.md, "Concurrency inside a session"). ref is
// the transcript entry written, "" when none was.
func (s *Server) runExec(ctx context.Context, sess *session, p *execParams, tr *turn) (res *execResult, ref string, err error) {
	defer tr.leave()
	if err := tr.wait(ctx); err != nil {
		return nil, "", proto.NewError(proto.CodeInternalError, "exec abandoned before it started: "+err.Error(), nil)
	}
	row := s.journalRow(sess, p)
	if p.prog == nil && p.runMode() {
		if err := leashCheck(ctx, sess, p, nil); err != nil {
			row.refused(p, err)
			return nil, "", err
		}
	}
	if p.approve != nil {
		if err := p.approve(ctx); err != nil {
			row.refused(p, err)
			return nil, "", err
		}
	}
	if row != nil && p.prog == nil {
		// The owner's fast path derives no plan to judge; the journal
		// records one, and the parsed program is the one that runs.
		plan, prog, err := derivePlan(sess, p.Src)
		if err != nil {
			return nil, "", err // a source that does not parse writes no row
		}
		p.prog, p.plan = prog, plan
	}
	row.plan(p)
	if err := row.begin(); err != nil {
		return nil, "", err
	}
	var out boundedBuffer
	// task.get of the run's task shows the tail of what it has printed.
	releaseOutput, _ := tasks.RegisterOutput(ctx, out.snapshot)
	defer releaseOutput()
	ro := eval.RunOptions{Stdout: &out, Stderr: &out, Display: displayStyle(p.Display)}
	// The task's output is also spooled for task.output and published,
	// as it is written, on its channel (taskoutput.go).
	if sink := s.newOutputSink(ctx, sess, &out); sink != nil {
		defer sink.finish()
		ro.Stdout, ro.Stderr = &sink.streams[streamStdout], &sink.streams[streamStderr]
	}
	if p.Position == "value" {
		ro.Position = eval.PositionValue
	}
	if p.Async || p.Background {
		ro.Started = tr.leave
	}
	var v value.Value
	if p.prog != nil {
		v, err = sess.interp.EvalProgramWith(row.context(ctx), p.prog, ro)
	} else {
		v, err = sess.interp.EvalSourceWith(row.context(ctx), p.Src, ro)
	}
	var se *syntax.Error
	if errors.As(err, &se) {
		return nil, "", parseError(err)
	}
	sess.settle()
	scope := sess.scope()
	if err != nil {
		e := langError(ctx, err)
		n, rerr := raised(sess, e)
		if row != nil {
			// The row's commit publishes the transcript event, numbered
			// by the journal (journalreplay.go).
			row.e.RefN, row.e.Code, row.e.Transcript = int64(n), e.Code, true
			row.finishError(e, n, &out)
		} else {
			s.publishJSON(scope, events.ChannelTranscript, newTranscriptEvent(refName(n), p.Src, false, e.Code))
		}
		s.publishOutput(scope, refName(n), &out)
		return nil, refName(n), rerr
	}
	n := sess.store(v)
	if row != nil {
		row.e.RefN = int64(n)
	}
	wire, err := elide(v, n, elideLimits(p.Elide))
	if err != nil {
		row.finish(true, nil, nil, &out) // it ran; only its answer failed
		return nil, refName(n), err
	}
	res = &execResult{Ref: refName(n), Value: wire, Render: render(v)}
	res.Cwd, _ = sess.snapshot()
	res.Cwd = toValidUTF8(res.Cwd)
	if code, ok := sess.interp.TakeExit(); ok {
		res.Exit = &code
	}
	if row != nil {
		row.e.Transcript = true // published by the row's commit
		row.finish(true, nil, journalValue(v, wire), &out)
	} else {
		s.publishJSON(scope, events.ChannelTranscript, newTranscriptEvent(res.Ref, p.Src, true, ""))
	}
	s.publishOutput(scope, res.Ref, &out)
	s.publishRender(scope, renderEvent{Ref: res.Ref, Render: headLines(res.Render, RenderHeadLines, DefaultMaxBytes)})
	return res, res.Ref, nil
}

// publishOutput publishes the statement-position command output an exec
// produced, if any, on the render channel.
func (s *Server) publishOutput(scope events.Scope, ref string, out *boundedBuffer) {
	text, total, truncated := out.snapshot()
	if total == 0 {
		return
	}
	if p, cut := proto.EncodedPrefix(text, MaxExecOutput); cut {
		text, truncated = p, true // escapes count: NUL bytes take six
	}
	s.publishJSON(scope, events.ChannelRender, outputEvent{Ref: ref, Output: text, Bytes: total, Truncated: truncated})
}

// outputEvent is the payload of a render event carrying the command output
// of an exec's statements: as text, at most MaxExecOutput bytes of it once
// encoded.
type outputEvent struct {
	Ref       string `json:"ref"`
	Output    string `json:"output"`
	Bytes     int64  `json:"bytes"`
	Truncated bool   `json:"truncated"`
}

// AppendJSON appends the event's JSON encoding to b.
func (e outputEvent) AppendJSON(b []byte) []byte {
	b = append(b, `{"ref":`...)
	b = proto.AppendString(b, e.Ref)
	b = append(b, `,"output":`...)
	b = proto.AppendString(b, e.Output)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, e.Bytes, 10)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, e.Truncated)
	return append(b, '}')
}

// transcriptEvent is the payload of a session.transcript event.
type transcriptEvent struct {
	Ref          string `json:"ref"`
	Src          string `json:"src"`
	SrcTruncated bool   `json:"src_truncated,omitempty"`
	OK           bool   `json:"ok"`
	Code         string `json:"code,omitempty"`
}

// AppendJSON appends the event's JSON encoding to b.
func (e transcriptEvent) AppendJSON(b []byte) []byte {
	b = append(b, `{"ref":`...)
	b = proto.AppendString(b, e.Ref)
	b = append(b, `,"src":`...)
	b = proto.AppendString(b, e.Src)
	if e.SrcTruncated {
		b = append(b, `,"src_truncated":true`...)
	}
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, e.OK)
	if e.Code != "" {
		b = append(b, `,"code":`...)
		b = proto.AppendString(b, e.Code)
	}
	return append(b, '}')
}

// newTranscriptEvent builds the event, keeping at most MaxTranscriptSrc
// bytes of src (the value itself stays addressable as ref).
func newTranscriptEvent(ref, src string, ok bool, code string) transcriptEvent {
	ev := transcriptEvent{Ref: ref, Src: src, OK: ok, Code: code}
	if len(src) > MaxTranscriptSrc {
		cut := MaxTranscriptSrc
		for cut > 0 && !utf8.RuneStart(src[cut]) {
			cut--
		}
		ev.Src, ev.SrcTruncated = src[:cut], true
	}
	return ev
}

// renderEvent is the payload of a render event.
type renderEvent struct {
	Ref    string `json:"ref"`
	Render string `json:"render"`
}

// AppendJSON appends the event's JSON encoding to b.
func (e renderEvent) AppendJSON(b []byte) []byte {
	b = append(b, `{"ref":`...)
	b = proto.AppendString(b, e.Ref)
	b = append(b, `,"render":`...)
	b = proto.AppendString(b, e.Render)
	return append(b, '}')
}

// langError returns err as a language error.
func langError(ctx context.Context, err error) *value.Error {
	var ve *value.Error
	if errors.As(err, &ve) {
		if ve.Code == value.CodeCancelled && errors.Is(ctx.Err(), context.DeadlineExceeded) && ve.Hint == "" {
			ve.Hint = "timeout_ms elapsed"
		}
		return ve
	}
	if ctx.Err() != nil {
		e := value.Errorf(value.CodeCancelled, "%s", err.Error())
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			e.Hint = "timeout_ms elapsed"
		}
		return e
	}
	return value.Errorf(value.CodeInternal, "%s", err.Error())
}

// raised stores a language error in the transcript and returns its number
// and the RAISED answer.
func raised(sess *session, e *value.Error) (int, error) {
	n := sess.store(e)
	d := raisedData{Ref: refName(n), URI: refURI(n), Code: e.Code}
	d.Cwd, _ = sess.snapshot()
	d.Cwd = toValidUTF8(d.Cwd)
	if e.HasPos {
		d.Span = &proto.Span{Start: int(e.Span.Start), End: int(e.Span.End)}
	}
	if e.Status != nil {
		d.Status, _ = elide(e.Status, n, limits{maxBytes: DefaultMaxBytes, maxRows: DefaultMaxRows, maxItems: DefaultMaxItems})
	}
	if e.Stderr != nil {
		d.Stderr, _ = elide(e.Stderr, n, limits{maxBytes: DefaultMaxBytes, maxRows: DefaultMaxRows, maxItems: DefaultMaxItems})
	}
	if e.Hint != "" {
		h := fitEncoded(e.Hint, MaxErrorText)
		d.Hint = &h
	}
	return n, proto.NewError(proto.CodeRaised, fitEncoded(e.Msg, MaxErrorText), d)
}
