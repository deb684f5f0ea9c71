package kernel

import (
	"context"
	"encoding/base64"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/tasks"
	"github.com/shoalgo/shoal/proto"
)

// outputSink is where an exec task's two streams go: the exec's own
// bounded buffer (its render event, task.get's tail) and, from the first
// byte on, the task's spool (task.output) and output events on its
// channel. An exec that prints nothing creates neither.
type outputSink struct {
	s       *Server
	sess    *session
	t       *tasks.Task
	kept    io.Writer
	streams [2]sinkStream

	mu   sync.Mutex
	sp   *spool
	em   *outEmitter
	done bool // the exec has ended: later writes (of a `cmd &` it left) are not spooled
}

// sinkStream is one stream of a sink.
type sinkStream struct {
	k      *outputSink
	stream int
}

// Write keeps p and always reports success: a command never fails
// because its output is not kept.
func (w *sinkStream) Write(p []byte) (int, error) {
	_, _ = w.k.kept.Write(p)
	w.k.write(w.stream, p)
	return len(p), nil
}

// newOutputSink is the sink of the task whose work context is ctx, or
// nil outside a task.
func (s *Server) newOutputSink(ctx context.Context, sess *session, kept io.Writer) *outputSink {
	t, ok := tasks.Current(ctx)
	if !ok || s.outputs == nil {
		return nil
	}
	return s.sinkFor(sess, t, kept)
}

func (k *outputSink) write(stream int, p []byte) {
	if len(p) == 0 {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return
	}
	if k.sp == nil {
		// Named only now: an exec that prints nothing pays for none of it.
		k.sp = k.s.outputs.open(outputKey{principal: k.sess.key.principal, session: k.sess.key.name, task: k.t.ID()})
		k.em = newOutEmitter(k.s, k.sess.scope(), k.t.Record().Channel())
	}
	off := k.s.outputs.write(k.sp, p)
	k.em.add(stream, off, p)
}

// finish publishes the output still waiting for its event; later writes
// are not spooled.
func (k *outputSink) finish() {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.done = true
	if k.sp != nil {
		k.em.close()
		if !k.t.Record().Foreground {
			k.sess.noteOutputEnded() // retained, with output: not idle yet (idlework.go)
		}
	}
}

// forgetTaskOutput drops the spool of a task that is not retained (a
// synchronous exec, one that finished within its timeout_ms).
func (s *Server) forgetTaskOutput(sess *session, t *tasks.Task) {
	if s.outputs == nil || t == nil {
		return
	}
	s.outputs.forgetKey(outputKey{principal: sess.key.principal, session: sess.key.name, task: t.ID()})
}

// handleTaskOutput answers task.output: the caller's task's output from
// an offset (proto.TaskOutputChunk).
func handleTaskOutput(_ context.Context, c *call) (any, error) {
	var p proto.TaskOutputParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Task == nil {
		return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "task" is required`, nil)
	}
	off, limit := int64(0), int64(proto.MaxTaskOutputRead)
	if p.Offset != nil {
		if *p.Offset < 0 {
			return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: offset must not be negative", nil)
		}
		off = *p.Offset
	}
	if p.Limit != nil {
		if *p.Limit < 1 || *p.Limit > proto.MaxTaskOutputRead {
			return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: limit must be between 1 and 1048576", nil)
		}
		limit = *p.Limit
	}
	sess := c.att.sess
	rec, err := sess.tasks.Get(sess.owner(), *p.Task)
	if err != nil {
		return nil, taskError(c.req.Method, *p.Task, err)
	}
	srv := c.conn.srv
	if srv.outputs == nil {
		return nil, proto.NewError(proto.CodeInternalError, "task.output: the kernel keeps no output", nil)
	}
	r, err := srv.outputs.read(outputKey{principal: sess.key.principal, session: sess.key.name, task: rec.Task}, off, limit)
	if err != nil {
		return nil, proto.NewError(proto.CodeInternalError, "task.output: "+err.Error(), nil)
	}
	res := &proto.TaskOutputChunk{Task: rec.Task, Offset: r.offset, Next: r.next, Dropped: r.dropped,
		EOF: rec.State.Terminal() && r.next == r.total}
	if utf8.Valid(r.data) {
		t := string(r.data)
		res.Text = &t
	} else {
		b := base64.StdEncoding.EncodeToString(r.data)
		res.Base64 = &b
	}
	return res, nil
}
