package eval

import (
	"context"
	"github.com/shoalgo/shoal/internal/reef"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// maxEvalDepth bounds how deeply one evaluation nests, counting in one
// budget each callable invocation (closure, builtin, alias expansion) and
// each evaluation the evaluator recurses into (a compound expression, a
// control form, a run of statements). Past it the evaluation raises
// recursion_limit rather than exhaust the Go stack: each unit costs at
// most a few KiB of stack, so an evaluation's stack stays under about
// 128 MiB (the Go runtime's own limit is 1 GiB; the worst construct
// measured used 32 MiB). A recursive function of the usual shape, `fn f(n)
// { if n == 0 { 0 } else { f(n - 1) } }`, reaches 7,999 calls; a tree at
// syntax.MaxDepth uses at most a few thousand units.
const maxEvalDepth = 40_000

// thread is the explicit execution context of one evaluation: the host
// gate, cancellation, the dynamic working directory and environment, call
// depth and output writers. Calls and `source` run on their caller's
// thread (adjusting depth in place); `with` and `run` derive a child copy
// on the same goroutine so their dynamic changes vanish with it; a
// background task (spawn, `&`) runs on a thread forked from its parent's
// (see fork). Every thread is made by newThread.
//
// Navigation state (dir, oldpwd, dirStack) is the thread's, so a child's
// `cd`, `pushd` and `popd` move only the child: `cd -` after a `with`
// block returns to where the session's own navigation last was. The
// session's top-level thread hands what it changed back to its Interp
// when its evaluation ends (Interp.keepState).
type thread struct {
	in      *Interp
	ctx     context.Context
	host    host.Host
	dir     string   // absolute working directory
	env     []string // KEY=VALUE, copy-on-write
	depth   int      // evaluation nesting: calls and expressions, see maxEvalDepth
	fnDepth int      // >0 inside a function body
	stdout  io.Writer
	stderr  io.Writer
	style   *value.Style  // statement output's display style; nil: Options.Display
	root    *scope        // scope `source` evaluates into at top level
	top     bool          // the session's own thread: navigation persists
	free    []*scope      // recycled scopes (see getScope)
	stack   []value.Value // closure-call arguments (see callClosureArgs)
	ticks   uint32        // calls made, for periodic cancellation checks
	pause   *Pause        // holds the evaluation while its task is suspended
	hook    func()        // the compute hook (compute.go); nil: none
	wait    func()        // the wait hook (LeadHooks.Wait); nil: none
	// hookTicks and hookSince: checkpoints since the clock was last read,
	// and when the hook was last called (computeCheck; 0: not yet).
	hookTicks uint32
	hookSince int64

	oldpwd   string       // directory left by the last navigation, for `cd -`
	dirStack []string     // pushd stack, most recent first; replaced, never mutated
	st       *strand      // this goroutine's hold on the session lock
	task     *Task        // the background task running on this thread; nil in the foreground
	reefOver []reef.Scope // `with reef:` overrides in force, innermost first; replaced, never mutated
	src      string       // the top-level program's text when known (RunOptions.Source), for job descriptions
}

// newThread is the one constructor of a thread from scratch: every thread
// has the session's host gate (its principal and authoriser; a thread
// cannot be given another), a context (its cancellation parent, which also
// carries the session's memory budget, see Interp.begin) and a strand. The
// top-level thread of an evaluation (topThread) and a background task's
// thread (fork) are both made here; child copies a made thread.
func newThread(in *Interp, ctx context.Context, st *strand) *thread {
	if in == nil || ctx == nil || st == nil {
		panic("eval: a thread needs its session, a context and a strand")
	}
	var hook, wait func()
	if h := leadHooksFrom(ctx); h != nil {
		hook, wait = h.Compute, h.Wait
	}
	return &thread{
		in:       in,
		ctx:      ctx,
		pause:    pauseFrom(ctx),
		hook:     hook,
		wait:     wait,
		host:     in.host,
		dir:      in.dir,
		env:      in.env,
		oldpwd:   in.oldpwd,
		dirStack: in.dirStack,
		stdout:   io.Discard,
		stderr:   io.Discard,
		root:     in.root,
		st:       st,
	}
}

// child derives a thread for a dynamic sub-context.
func (t *thread) child() *thread {
	c := *t
	c.top = false
	c.free = nil
	c.stack = nil
	return &c
}

// runProgram evaluates top-level statements in sc.
func (t *thread) runProgram(p *syntax.Program, sc *scope) (value.Value, error) {
	return t.runProgramFinal(p, sc, modeFinal)
}

// runProgramFinal is runProgram with the final statement run in mode fm.
func (t *thread) runProgramFinal(p *syntax.Program, sc *scope, fm mode) (value.Value, error) {
	var last value.Value = value.Nil
	for i, st := range p.Stmts {
		if err := t.checkpoint(); err != nil {
			return nil, err
		}
		final := i == len(p.Stmts)-1
		mode := modeStmt
		if final {
			mode = fm
		}
		v, err := t.execStmt(st, sc, mode)
		if err != nil {
			if f, ok := err.(*flow); ok {
				switch f.kind {
				case flowReturn:
					return f.val, nil
				case flowExit:
					return value.Nil, nil
				}
				return nil, errorf(codeType, "%s", f.Error()).At(st.Pos())
			}
			return nil, langError(err)
		}
		last = v
		if t.in.exitCode != nil {
			break
		}
	}
	if last == nil {
		last = value.Nil
	}
	return last, nil
}

// abs resolves p against the thread's working directory, expanding a
// leading `~`.
func (t *thread) abs(p string) string {
	p = t.expandHome(p)
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(t.dir, p)
}

func (t *thread) expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, ok := t.getenv("HOME"); ok && home != "" {
			return home + p[1:]
		}
	}
	return p
}

// getenv reads the thread's environment.
func (t *thread) getenv(name string) (string, bool) {
	return lookupEnv(t.env, name)
}

func lookupEnv(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		kv := env[i]
		if len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name {
			return kv[len(name)+1:], true
		}
	}
	return "", false
}

// withEnv returns env with name set to val (a fresh slice).
func withEnv(env []string, name, val string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name {
			continue
		}
		out = append(out, kv)
	}
	return append(out, name+"="+val)
}

// value.Env implementation: what methods may ask of the evaluator.

// Call invokes a callable value with positional arguments.
func (t *thread) Call(fn value.Value, args ...value.Value) (value.Value, error) {
	return t.callValue(fn, args, nil, syntax.Span{})
}

// CallForEffect calls fn for its effects alone (value.EffectCaller): a
// closure's body runs as a statement, so `xs.each(x => echo (x))` prints
// as `for x in xs { echo (x) }` does.
func (t *thread) CallForEffect(fn value.Value, args ...value.Value) error {
	c, ok := fn.(*Closure)
	if !ok {
		_, err := t.Call(fn, args...)
		return err
	}
	_, err := t.callClosureMode(c, args, nil, modeStmt)
	return err
}

// Context is cancelled when the evaluation is cancelled.
func (t *thread) Context() context.Context { return t.ctx }

// Now is the evaluation's clock for measuring intervals (not gated).
func (t *thread) Now() time.Time { return t.host.Now() }

// Clock reads the wall clock through the host's time gate.
func (t *thread) Clock() (time.Time, error) {
	now, err := t.host.Clock(t.ctx)
	if err != nil {
		return time.Time{}, hostError(err)
	}
	return now, nil
}
