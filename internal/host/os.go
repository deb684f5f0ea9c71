package host

import (
	"context"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shoalgo/shoal/internal/contain"
	"github.com/shoalgo/shoal/internal/sandbox"
)

// Defaults for an OS host; each can be changed with an Option.
const (
	DefaultMaxCapture = 16 << 20 // bytes kept in memory per stream
	DefaultMaxRead    = 64 << 20 // bytes ReadFile returns at most
	DefaultSpillLimit = 1 << 30  // bytes of stdout stored in a spill file
	DefaultKillGrace  = 500 * time.Millisecond
	DefaultWaitDelay  = 250 * time.Millisecond
)

// OS is the Host that acts on the real operating system. It is safe for
// concurrent use; it holds configuration only, never per-session state.
//
// Which effects each method asks for:
//
//	Stat, Lstat, ReadFile, ReadDir   fs_read   the path
//	WriteFile, MkdirAll              fs_write  the path
//	Remove                           fs_delete the path (the one op covers the tree when recursive)
//	Rename                           fs_delete from, then fs_write to
//	Copy                             fs_read from, then fs_write to
//	Symlink                          fs_write  the link (the target is only a name, never read)
//	Link                             fs_read   the target, then fs_write the link (a hard link
//	                                           exposes the target's content under a new name)
//	Chtimes                          fs_write  the path
//	Glob                             fs_read   the directory the walk starts in (dir plus the
//	                                           pattern's literal prefix; the full path if literal)
//	LookPath                         env_read  "PATH" for a bare name (the search consults the
//	                                           session's PATH and only stats candidates: it
//	                                           discovers a program, proc_spawn then gates running
//	                                           it); fs_read the path for a name containing "/"
//	Run                              proc_spawn argv[0] with the full argv
//	Environ                          env_read  "*" (the whole environment)
//	Clock                            time      (no target)
//	Now                              nothing: bookkeeping only, see Now
//	Facts                            sys_read  the fact: hostname, pid, username, uptime,
//	                                           cpus, platform or arch (the machine, not the
//	                                           session environment)
//	HTTP                             net_connect "host:port" of the URL, and of each redirect
//	                                           before it is followed
//	Secret                           secret_use the name (the store is the host's own; no
//	                                           fs op is asked for it)
//
// Every method asks all of its ops before it touches anything, so a refusal
// leaves the world unchanged.
type OS struct {
	auth       Authorizer
	maxCapture int64
	maxRead    int64
	spillDir   string
	spillLimit int64
	killGrace  time.Duration
	waitDelay  time.Duration
	now        func() time.Time
	environ    func() []string
	live       atomic.Int64         // watches and tails running
	running    liveSet              // the same, to close them (CloseLive)
	procs      *contain.Scope       // where Run starts processes; nil: untracked
	sandbox    func() sandbox.Rules // OS confinement of every spawn; nil: none
	// secretDir is the secret store (WithSecretDir); unset, SecretDir of
	// the host's environment.
	secretDir    string
	secretDirSet bool
	// noTerminal starts every program in a session of its own
	// (WithoutTerminal).
	noTerminal bool
	// beforeLasting is called before anything that lasts outside the
	// process (WithBeforeLasting); nil: nothing.
	beforeLasting func()
}

var _ Host = (*OS)(nil)

// Option configures an OS host.
type Option func(*OS)

// WithoutTerminal starts every program in a new session of its own, with
// no controlling terminal, instead of a process group in the caller's
// session: a kernel's programs cannot open /dev/tty and so cannot read
// from or write to the terminal the kernel was started from (its own
// file), and a program that wants a terminal fails at once instead of
// taking it. The kernel's hosts use it; the shoal REPL, whose programs
// share its terminal by job control, does not.
func WithoutTerminal() Option { return func(o *OS) { o.noTerminal = true } }

// procAttr is how a program starts: in a process group of its own (so
// that its whole tree can be signalled), and in a session of its own
// under WithoutTerminal.
func (o *OS) procAttr() *syscall.SysProcAttr {
	if o.noTerminal {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true}
}

// WithBeforeLasting makes the host call fn before it does anything that
// lasts outside this process, and that would be left half-done were the
// process to die at that moment: before it starts a process, whichever
// way (Run, RunTerminal, StartAttached: fn returns before the fork), before
// it changes the file system (every fs_write and fs_delete op, asked of
// the gate before the change), and before ReadTerminalLine changes the
// terminal's modes. The standalone shoal takes SIGINT and SIGTERM over
// there, so that a signal before it kills a process that has nothing to
// clean up, and one after it cancels. fn must be safe for concurrent use
// and cheap once it has done its work. nil: nothing is called.
func WithBeforeLasting(fn func()) Option { return func(o *OS) { o.beforeLasting = fn } }

// lasting calls the WithBeforeLasting hook when op is one.
func (o *OS) lasting(op Effect) {
	if o.beforeLasting != nil && (op == ProcSpawn || op == FSWrite || op == FSDelete) {
		o.beforeLasting()
	}
}

// WithMaxCapture sets the default in-memory capture bound per stream, used
// when Spawn.MaxCapture is 0. Values below 1 are ignored.
func WithMaxCapture(n int64) Option {
	return func(o *OS) {
		if n > 0 {
			o.maxCapture = n
		}
	}
}

// WithMaxRead sets how many bytes ReadFile reads at most before failing
// with ErrTooLarge. Values below 1 are ignored.
func WithMaxRead(n int64) Option {
	return func(o *OS) {
		if n > 0 {
			o.maxRead = n
		}
	}
}

// WithSpillDir sets the directory for stdout spill files ("" means the
// system temporary directory).
func WithSpillDir(dir string) Option { return func(o *OS) { o.spillDir = dir } }

// WithSpillLimit bounds the bytes stored in one spill file; output beyond it
// is drained and discarded. 0 disables spilling altogether.
func WithSpillLimit(n int64) Option {
	return func(o *OS) {
		if n >= 0 {
			o.spillLimit = n
		}
	}
}

// WithKillGrace sets how long a cancelled process group has between SIGTERM
// and SIGKILL.
func WithKillGrace(d time.Duration) Option {
	return func(o *OS) {
		if d >= 0 {
			o.killGrace = d
		}
	}
}

// WithWaitDelay sets how long Run waits, after the child exits, for
// descendants that still hold its output pipes before closing them.
func WithWaitDelay(d time.Duration) Option {
	return func(o *OS) {
		if d > 0 {
			o.waitDelay = d
		}
	}
}

// WithProcesses makes Run and RunTerminal start every process in scope, so
// that closing the scope ends everything this host started, however far it
// strayed (see package contain). Without it processes are still started
// with Pdeathsig and their trees ended on cancellation, but nothing ends
// the background processes a finished command leaves.
func WithProcesses(scope *contain.Scope) Option { return func(o *OS) { o.procs = scope } }

// WithClock replaces the wall clock returned by Now (tests).
func WithClock(now func() time.Time) Option {
	return func(o *OS) {
		if now != nil {
			o.now = now
		}
	}
}

// WithEnviron replaces the environment returned by Environ (tests). The
// slice is copied.
func WithEnviron(env []string) Option {
	env = append([]string(nil), env...)
	return func(o *OS) { o.environ = func() []string { return append([]string(nil), env...) } }
}

// NewOS returns a host acting on the operating system, gated by auth. A nil
// auth refuses everything (fail closed).
func NewOS(auth Authorizer, opts ...Option) Host {
	return newOS(auth, opts...)
}

func newOS(auth Authorizer, opts ...Option) *OS {
	if auth == nil {
		auth = DenyAll
	}
	o := &OS{
		auth:       auth,
		maxCapture: DefaultMaxCapture,
		maxRead:    DefaultMaxRead,
		spillLimit: DefaultSpillLimit,
		killGrace:  DefaultKillGrace,
		waitDelay:  DefaultWaitDelay,
		now:        time.Now,
		environ:    os.Environ,
	}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// authorize asks for op, failing first if ctx is already done. Ops on a
// path or program get op.Real, the target with its symlinks resolved (see
// realPath), so that the Authorizer judges what the OS will really touch.
func (o *OS) authorize(ctx context.Context, op Op) error {
	return o.authorizeResolved(ctx, op, true)
}

// authorizeNoFollow is authorize for an op that does not follow a final
// symlink (Lstat, Remove, Rename, the new name of Symlink and Link).
func (o *OS) authorizeNoFollow(ctx context.Context, op Op) error {
	return o.authorizeResolved(ctx, op, false)
}

func (o *OS) authorizeResolved(ctx context.Context, op Op, follow bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o.lasting(op.Effect)
	switch {
	case o.auth == AllowAll:
		return nil // nothing to judge, so nothing to resolve
	case o.auth == DenyAll: // refuses whatever the path resolves to
	case o.unrestricted(): // allows whatever the path resolves to
	default:
		if err := resolveFor(&op, follow); err != nil {
			return err
		}
	}
	return o.auth.Authorize(ctx, op)
}

// Unrestricted is implemented by an Authorizer that can say it allows
// every op right now (a session gate whose grants are unrestricted, but
// which may narrow later). While it says so the host treats it like
// AllowAll for paths: it resolves nothing and acts through package os,
// still asking it about every op.
type Unrestricted interface {
	Unrestricted() bool
}

// unrestricted reports whether o's Authorizer says it allows every op.
func (o *OS) unrestricted() bool {
	u, ok := o.auth.(Unrestricted)
	return ok && u.Unrestricted()
}

// Environ returns the host process environment after asking env_read "*".
func (o *OS) Environ(ctx context.Context) ([]string, error) {
	if err := o.authorize(ctx, Op{Effect: EnvRead, Target: "*"}); err != nil {
		return nil, err
	}
	return o.environ(), nil
}

// Clock returns the wall clock after asking time.
func (o *OS) Clock(ctx context.Context) (time.Time, error) {
	if err := o.authorize(ctx, Op{Effect: Clock}); err != nil {
		return time.Time{}, err
	}
	return o.now(), nil
}

// Now returns the wall clock without asking: it serves bookkeeping
// (intervals, touch's file times, event stamps), never a time value the
// program computes with, which comes from Clock.
func (o *OS) Now() time.Time { return o.now() }
