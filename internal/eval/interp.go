package eval

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"sort"
	"sync"

	"github.com/shoalgo/shoal/internal/adapters"
	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/namespaces"
	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Options configures a new interpreter session.
type Options struct {
	Host host.Host // required: every effect goes through it
	// Registry is required: the builtin commands, functions, methods and
	// namespaces programs can use (stdlib.Registry, built once and shared
	// read-only by every session).
	Registry *Registry
	Dir      string // initial working directory (absolute)
	// Trash, when set, is the directory rm (without --permanent) moves
	// what it removes into (a directory of this process beneath it), in
	// place of <TMPDIR>/shoal-trash: the kernel's own per-principal place,
	// which the session's environment cannot steer.
	Trash string
	// Trashed, when set, is called after rm has moved something into the
	// trash: the kernel's trash retention runs soon after.
	Trashed        func()
	Env            []string  // initial environment; nil means Host.Environ
	Stdout, Stderr io.Writer // statement-position command output (nil discards)
	REPL           bool      // parse with REPL affordances
	// KeepJobOutput keeps the statement output of jobs started with `&`
	// (bounded, see MaxJobOutput) for the embedder to show (JobReports)
	// instead of discarding it, and lets JobReports retire finished jobs
	// from `jobs` once reported: the interactive REPL sets it.
	KeepJobOutput bool
	// Terminal, when set, is the interactive terminal: an external command
	// in statement position without redirects then runs in its foreground
	// (host.RunTerminal) instead of having its output streamed and
	// captured, so prompting and full-screen programs work.
	Terminal interface{ Fd() uintptr }
	// Budget, when set, is charged for the memory the session's values
	// keep alive and for captured output (see memory.go); a program that
	// keeps more gets quota_exceeded. nil: unbounded (the CLI, the REPL).
	Budget *budget.Budget
	// Tasks, when set, is told of every language task the session starts
	// and may refuse it (see TaskHook); the kernel uses it for its
	// kernel-wide task bound and its task registry. nil: only the session's
	// own bounds (MaxLiveTasks, MaxTaskRecords) apply.
	Tasks TaskHook
	// Journal, when set, is the durable journal the journal, history and
	// undo builtins read (see JournalSource); nil: they fail with
	// `unavailable`.
	Journal JournalSource
	// Content, when set, resolves `val:blake3:` content refs against the
	// session's content store (see ContentSource); nil: a method on a
	// ref-shaped string fails with not_found.
	Content ContentSource
	// Script, when set, is the script file the session runs (`shoal FILE
	// ARGS…`): the root scope binds `script` to its path and `args` to
	// Args as strings, as a script started with `run` sees them.
	Script string
	Args   []string
	// Display is the style a statement-position builtin result prints in
	// (`ls` inside a loop): the shoal command shows values to a person
	// (value.Human); the zero Style, the plain display, elsewhere.
	Display value.Style
	// Config, when set, is the host-injected snapshot of the resolved
	// configuration (namespaces.LoadConfig) that the config namespace
	// reads: config.all(), config.get(key), config.KEY. nil: an empty
	// snapshot (every lookup is null).
	Config *value.Record
	// Reef turns on Reef's discovery: the manifests from the working
	// directory up, the user's [reef] table and their reef.lock decide
	// what a constrained command name runs (reef.go). They are read
	// through Host like every other file, but they are the shell's own
	// configuration rather than the program's effects, so plans do not
	// list them; a read the gate refuses makes that file invisible. Off,
	// only `with reef:` overrides constrain.
	Reef bool
	// ProjectTrust is the person's decision about project directories: a
	// directory's manifests and lock count only while it says Trusted for
	// their current digest (reef.Discover); an untrusted one is named once
	// on the session's stderr and otherwise ignored, and Reef writes
	// nothing into it. A reef.TrustRecorder also carries trust over the
	// session's own lock and manifest writes (the shoal command); without
	// one a write leaves the directory changed. nil trusts no project
	// directory (the user's [reef] and overrides still count);
	// reef.TrustEverything is for embedders that own their directories.
	ProjectTrust reef.Trust
	// TrustNotice, when set, is told of each directory whose project
	// files were ignored, instead of the session printing the notice on
	// its stderr (the shoal command says each once per process, config
	// layer included). It is called at most once per directory and state.
	TrustNotice func(reef.UntrustedDir)
	// Adapters, when set, is the command-adapter catalog: a command head
	// it declares is bound to its declaration before the program starts
	// and its output parsed (see adapted.go). `^head` bypasses it. nil:
	// every such head is an ordinary external program.
	Adapters *adapters.Catalog
}

// Interp is one evaluation session. Its methods are safe for concurrent
// use: evaluations (and the session's background tasks) take turns under
// the session lock (see sched.go), so several Evals may be called at once.
type Interp struct {
	host host.Host
	opts Options
	root *scope

	// lineHistory, when set, is the REPL's typed lines (SetLineHistory).
	lineHistory func() []string

	sched *sched    // the session lock
	tasks taskTable // language tasks (spawn, &)

	// life ends when the session closes (Close): every background task's
	// context derives from it.
	life      context.Context
	closeLife context.CancelFunc

	// Session state shared by the top-level thread. dir and env are also
	// read without the session lock (Dir, Environ: the kernel's program
	// lookups run inside host calls), so they change under stateMu too.
	stateMu  sync.Mutex
	dir      string
	env      []string
	oldpwd   string
	dirStack []string
	exitCode *int

	transcript []value.Value // REPL values, bound as `out`

	cache sync.Map // per-node caches: compiled regexes, lambda analyses

	chanOnce sync.Once
	chans    *Channels // the session's channel bus (see Channels)

	meter *meter // charges Options.Budget; nil without one

	plans planStore // programs stored by `plan`, at most MaxStoredPlans

	config *value.Namespace // the config namespace over Options.Config

	outMu  sync.Mutex // serialises background writes to Options.Stdout/Stderr (output.go)
	reef   reefState  // Reef's chain, lock and digest caches (reef.go)
	visits visits     // directories navigated to, ranked for jump (visits.go, Context.Visited)
}

// New creates a session.
func New(opts Options) (*Interp, error) {
	if opts.Host == nil {
		return nil, errors.New("eval: Options.Host is required")
	}
	if opts.Registry == nil {
		return nil, errors.New("eval: Options.Registry is required")
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
	if opts.Script != "" {
		items := make([]value.Value, len(opts.Args))
		for i, a := range opts.Args {
			items[i] = value.Str(a)
		}
		in.root.declare("args", value.NewList(items), false)
		in.root.declare("script", value.Path(opts.Script), false)
	}
	in.config = namespaces.Config(opts.Config)
	in.meter = newMeter(opts.Budget)
	in.sched = newSched()
	in.life, in.closeLife = context.WithCancel(context.Background())
	return in, nil
}

// Close ends the session's life: every background task is cancelled
// (killing the processes it runs). Evaluations started afterwards still
// run, but tasks they start are cancelled at once. Close does not wait;
// see WaitTasks.
func (in *Interp) Close() { in.closeLife() }

// WaitTasks waits until every background task has finished or ctx ends.
func (in *Interp) WaitTasks(ctx context.Context) error {
	done := make(chan struct{})
	go func() { in.tasks.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// LiveTasks is the number of background tasks running now.
func (in *Interp) LiveTasks() int {
	in.tasks.mu.Lock()
	defer in.tasks.mu.Unlock()
	return in.tasks.live
}

// Eval parses src against the session's bindings and runs it. Errors are
// *syntax.Error or *value.Error (with a span when known).
func (in *Interp) Eval(ctx context.Context, src string) (value.Value, error) {
	return in.run(ctx, func() (*syntax.Program, error) {
		return syntax.Parse(src, syntax.ParseOptions{IsBound: in.isBound, REPL: in.opts.REPL})
	}, RunOptions{Source: src})
}

// EvalProgram runs an already parsed program in the session scope.
func (in *Interp) EvalProgram(ctx context.Context, p *syntax.Program) (value.Value, error) {
	return in.EvalProgramWith(ctx, p, RunOptions{})
}

// run takes the session lock, gets the program from parse (under the
// lock, so it parses against the bindings it will run with) and evaluates
// it on a new top-level thread.
func (in *Interp) run(ctx context.Context, parse func() (*syntax.Program, error), o RunOptions) (value.Value, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	st := &strand{}
	if err := in.hold(ctx, st); err != nil {
		return nil, hostError(err)
	}
	defer in.letGo(st)
	if o.Started != nil {
		o.Started()
	}
	p, err := parse()
	if err != nil {
		return nil, err
	}
	ctx, run := in.begin(ctx)
	defer run.done()
	t := in.topThread(ctx, st)
	if o.Stdout != nil {
		t.stdout = o.Stdout
	}
	if o.Stderr != nil {
		t.stderr = o.Stderr
	}
	t.src = o.Source
	t.style = o.Display
	fm := modeFinal
	if o.Position == PositionValue {
		fm = modeValue
	}
	defer in.keepState(t, t.dir, t.env, t.oldpwd, t.dirStack)
	v, err := t.runProgramFinal(p, in.root, fm)
	if err == nil && in.opts.REPL {
		in.record(v)
	}
	return v, end(ctx, err)
}

// sameSlice reports whether a and b are the same slice: the environment
// and the directory stack are copy-on-write, so a change makes a new one.
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
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

// topThread is the thread of one top-level evaluation; the caller holds
// the session lock on st.
func (in *Interp) topThread(ctx context.Context, st *strand) *thread {
	t := newThread(in, ctx, st)
	t.stdout = orDiscard(in.opts.Stdout)
	t.stderr = orDiscard(in.opts.Stderr)
	t.top = true
	return t
}

// keepState makes what the top-level thread t changed of its working
// directory, navigation (previous directory, directory stack) and
// environment the session's when its evaluation ends; dir0 … stack0 are
// what it started with. Only what this evaluation changed persists: two
// evaluations running at once (an async exec beside a foreground one) do
// not undo each other's cd. Navigation persists as one: a cd changes the
// directory and the previous directory together.
func (in *Interp) keepState(t *thread, dir0 string, env0 []string, old0 string, stack0 []string) {
	in.stateMu.Lock()
	defer in.stateMu.Unlock()
	if t.dir != dir0 || t.oldpwd != old0 || !sameSlice(t.dirStack, stack0) {
		in.dir, in.oldpwd, in.dirStack = t.dir, t.oldpwd, t.dirStack
	}
	if !sameSlice(t.env, env0) {
		in.env = t.env
	}
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// IsBound reports whether name is a session value binding (not a declared
// function or an alias, which are commands). It takes the session lock;
// evaluation code uses isBound.
func (in *Interp) IsBound(name string) bool {
	release := in.holdAlways()
	defer release()
	return in.isBound(name)
}

// isBound: a binding the parser must read as a value at a statement head.
// A declared function (`fn`) and an alias are commands, as they are in the
// source that declares them, so `f 1` and `gs --short` typed on a later
// line (the REPL, a later kernel exec) call them instead of failing to
// parse.
func (in *Interp) isBound(name string) bool {
	b := in.root.lookup(name)
	if b == nil {
		return false
	}
	switch v := b.val.(type) {
	case *CmdRef:
		return false
	case *Closure:
		return v.Name == ""
	}
	return true
}

// holdAlways takes the session lock for an accessor, however long it takes
// (holders give it up at their next wait or quantum).
func (in *Interp) holdAlways() func() {
	in.sched.acquireAlways()
	return in.sched.release
}

// Names lists the session's bound names, sorted.
func (in *Interp) Names() []string {
	release := in.holdAlways()
	defer release()
	return in.names()
}

func (in *Interp) names() []string {
	n := in.root.names()
	sort.Strings(n)
	return n
}

// Lookup returns the session binding for name.
func (in *Interp) Lookup(name string) (value.Value, bool) {
	release := in.holdAlways()
	defer release()
	return in.root.get(name)
}

// Budget is the memory budget the session is charged to (Options.Budget).
func (in *Interp) Budget() *budget.Budget { return in.opts.Budget }

// Dir is the session working directory.
func (in *Interp) Dir() string {
	in.stateMu.Lock()
	defer in.stateMu.Unlock()
	return in.dir
}

// Environ is the session environment (KEY=VALUE).
func (in *Interp) Environ() []string {
	in.stateMu.Lock()
	defer in.stateMu.Unlock()
	return append([]string(nil), in.env...)
}

// ExitRequested reports a pending `exit` request and its status.
func (in *Interp) ExitRequested() (int, bool) {
	release := in.holdAlways()
	defer release()
	if in.exitCode == nil {
		return 0, false
	}
	return *in.exitCode, true
}

// Registry is the registry the session runs with.
func (in *Interp) Registry() *Registry { return in.opts.Registry }

// reg is the registry the thread's session runs with.
func (t *thread) reg() *Registry { return t.in.opts.Registry }
