package kernel

import (
	"io"
	"sync/atomic"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/tasks"
)

// Language tasks' output: what a spawn, `cmd &`, `{ … } &`, on handler
// or parallel branch prints goes, like an exec task's, to the task's
// spool (task.output) and as output events to its channel task.N. The
// evaluator knows nothing of either: the session's TaskHook hands each
// task the two writers of a sink (eval.Task.SetOutput).

// sinkFor is an output sink for task t of sess whose writes also go to
// kept; its spool and emitter are made at its first byte.
func (s *Server) sinkFor(sess *session, t *tasks.Task, kept io.Writer) *outputSink {
	k := &outputSink{s: s, sess: sess, t: t, kept: kept}
	k.streams = [2]sinkStream{{k, streamStdout}, {k, streamStderr}}
	return k
}

// langSink is the sink of one language task, set once its kernel task
// exists (after its work has started, before its body runs).
type langSink struct{ p atomic.Pointer[outputSink] }

// attach gives tk, kernel task t of sess, a sink of its own.
func (l *langSink) attach(s *Server, sess *session, t *tasks.Task, tk *eval.Task) {
	if s == nil || s.outputs == nil {
		return
	}
	k := s.sinkFor(sess, t, io.Discard)
	l.p.Store(k)
	tk.SetOutput(&k.streams[streamStdout], &k.streams[streamStderr])
}

// end publishes what is still waiting, before the task's final record
// change; a task not retained (a parallel branch) takes its spool with
// it, as a synchronous exec's does.
func (l *langSink) end(sess *session, t *tasks.Task, awaited bool) {
	k := l.p.Load()
	if k == nil {
		return
	}
	k.finish()
	if awaited {
		k.s.forgetTaskOutput(sess, t)
	}
}
