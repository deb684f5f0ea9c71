package eval

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"sort"
	"sync"

	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Options configures a new interpreter session.
type Options struct {
	Host           host.Host // required: every effect goes through it
	Dir            string    // initial working directory (absolute)
	Env            []string  // initial environment; nil means Host.Environ
	Stdout, Stderr io.Writer // statement-position command output (nil discards)
	REPL           bool      // parse with REPL affordances
	// Terminal, when set, is the interactive terminal: an external command
	// in statement position without redirects then runs in its foreground
	// (host.RunTerminal) instead of having its output streamed and
	// captured, so prompting and full-screen programs work.
	Terminal interface{ Fd() uintptr }
	// Budget, when set, is charged for the memory the session's values
	// keep alive and for captured output (see memory.go); a program that
	// keeps more gets quota_exceeded. nil: unbounded (the CLI, the REPL).
	Budget *budget.Budget
}

// Interp is one evaluation session. It is not safe for concurrent use: run
// one Eval at a time.
type Interp struct {
	host host.Host
	opts Options
	root *scope

	// Session state shared by the top-level thread.
	dir      string
	env      []string
	oldpwd   string
	dirStack []string
	exitCode *int
	taskSeq  int

	transcript []value.Value // REPL values, bound as `out`

	cache sync.Map // per-node caches: compiled regexes, lambda analyses

	chanOnce sync.Once
	chans    *Channels // the session's channel bus (see Channels)

	meter *meter // charges Options.Budget; nil without one
}

// New creates a session.
func New(opts Options) (*Interp, error) {
	if opts.Host == nil {
		return nil, errors.New("eval: Options.Host is required")
	}
	if opts.Dir == "" || !filepath.IsAbs(opts.Dir) {
		return nil, errors.New("eval: Options.Dir must be an absolute directory")
	}
	env := opts.Env
	if env == nil {
		var err error
		env, err = opts.Host.Environ(context.Background())
		if err != nil {
			return nil, err
		}
	}
	in := &Interp{
		host: opts.Host,
		opts: opts,
		root: newScope(nil),
		dir:  filepath.Clean(opts.Dir),
		env:  append([]string(nil), env...),
	}
	in.meter = newMeter(opts.Budget)
	return in, nil
}

// Eval parses src against the session's bindings and runs it. Errors are
// *syntax.Error or *value.Error (with a span when known).
func (in *Interp) Eval(ctx context.Context, src string) (value.Value, error) {
	p, err := syntax.Parse(src, syntax.ParseOptions{IsBound: in.IsBound, REPL: in.opts.REPL})
	if err != nil {
		return nil, err
	}
	return in.EvalProgram(ctx, p)
}

// EvalProgram runs an already parsed program in the session scope.
func (in *Interp) EvalProgram(ctx context.Context, p *syntax.Program) (value.Value, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, done := in.begin(ctx)
	defer done()
	t := in.topThread(ctx)
	defer in.keepNav(t)
	v, err := t.runProgram(p, in.root)
	if err == nil && in.opts.REPL {
		in.record(v)
	}
	return v, end(ctx, err)
}

// MaxTranscript bounds the values a REPL session keeps in `out`; the
// oldest are dropped first.
const MaxTranscript = 1000

// record keeps a REPL transcript: `it` is the last value, `out` the values
// so far (the last MaxTranscript of them).
func (in *Interp) record(v value.Value) {
	if len(in.transcript) >= MaxTranscript {
		n := copy(in.transcript, in.transcript[len(in.transcript)-MaxTranscript+1:])
		clear(in.transcript[n:])
		in.transcript = in.transcript[:n]
	}
	in.transcript = append(in.transcript, v)
	in.root.declare("it", v, false)
	in.root.declare("out", value.NewList(append([]value.Value(nil), in.transcript...)), false)
}

func (in *Interp) topThread(ctx context.Context) *thread {
	t := &thread{
		in:     in,
		ctx:    ctx,
		pause:  pauseFrom(ctx),
		host:   in.host,
		dir:    in.dir,
		env:    in.env,
		stdout: orDiscard(in.opts.Stdout),
		stderr: orDiscard(in.opts.Stderr),
		root:   in.root,
		top:    true,
	}
	t.oldpwd, t.dirStack = in.oldpwd, in.dirStack
	return t
}

// keepNav makes the top-level thread t's working directory, environment
// and navigation state the session's when its evaluation ends.
func (in *Interp) keepNav(t *thread) {
	in.dir, in.env, in.oldpwd, in.dirStack = t.dir, t.env, t.oldpwd, t.dirStack
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// IsBound reports whether name is a session value binding.
func (in *Interp) IsBound(name string) bool {
	return in.root.lookup(name) != nil
}

// Names lists the session's bound names, sorted.
func (in *Interp) Names() []string {
	n := in.root.names()
	sort.Strings(n)
	return n
}

// Lookup returns the session binding for name.
func (in *Interp) Lookup(name string) (value.Value, bool) { return in.root.get(name) }

// Budget is the memory budget the session is charged to (Options.Budget).
func (in *Interp) Budget() *budget.Budget { return in.opts.Budget }

// Dir is the session working directory.
func (in *Interp) Dir() string { return in.dir }

// Environ is the session environment (KEY=VALUE).
func (in *Interp) Environ() []string { return append([]string(nil), in.env...) }

// ExitRequested reports a pending `exit` request and its status.
func (in *Interp) ExitRequested() (int, bool) {
	if in.exitCode == nil {
		return 0, false
	}
	return *in.exitCode, true
}
