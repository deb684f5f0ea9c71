package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/shoalgo/shoal/internal/contain"
	"golang.org/x/sys/unix"
)

// ErrNotAbsolute is returned by Run when Argv[0] is not an absolute path;
// resolve names with LookPath first.
var ErrNotAbsolute = errors.New("program path is not absolute")

// Run spawns s.Argv without a shell (proc_spawn argv[0] with the argv), in
// its own process group and in the host's containment scope (see
// WithProcesses), with exactly s.Env (nil means empty) and s.Dir, and waits
// for it.
//
// Stdout and stderr are drained concurrently, each kept in memory up to the
// capture bound; stdout beyond it spills to a temporary file (SpillPath,
// owned and removed by the caller; none with s.NoSpill) and Truncated is
// set. The child never
// blocks on a full pipe, and memory stays bounded whatever it prints.
//
// When ctx is cancelled the child's whole tree gets SIGTERM, then SIGKILL
// after the kill grace: its process group, its cgroup and every
// descendant, including those that moved to another group or session
// (see package contain). Run still reaps the child and returns its Result
// (a signal death) with a nil error: callers check ctx.Err() to tell a
// cancellation from a crash. Descendants that outlive the child and hold its
// pipes open are cut off after the wait delay; when not cancelled they keep
// running, in the scope, until it is closed.
//
// When ctx carries a Memory (WithMemory), the in-memory capture buffers
// are charged to it while the child runs; a growth the budget refuses
// stops buffering and Run, once the child has exited, returns the budget's
// error (wrapped). The charge ends when Run returns: the caller owns the
// buffers then.
//
// A non-nil error means the process could not be run or its I/O failed
// (for example the Stdin reader); a nonzero exit or signal death is a
// Result, not an error. On error no spill file is left behind.
func (o *OS) Run(ctx context.Context, s *Spawn) (*Result, error) {
	prog, err := o.checkSpawn(ctx, s)
	if err != nil {
		return nil, err
	}
	limit := s.MaxCapture
	if limit <= 0 {
		limit = o.maxCapture
	}
	var mu sync.Mutex
	spillLimit := o.spillLimit
	if s.NoSpill {
		spillLimit = 0
	}
	mem := memoryOf(ctx)
	stdout := &capture{max: limit, tee: tee(s.StreamOut, &mu), spillDir: o.spillDir, spillLimit: spillLimit, mem: mem}
	stderr := &capture{max: limit, tee: tee(s.StreamErr, &mu), mem: mem}
	// The buffers pass to the caller with the Result, who accounts for
	// them from then on; on every path the host's own charge ends here.
	defer stdout.release()
	defer stderr.release()
	env := s.Env
	if env == nil {
		env = []string{}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	var (
		pid int
		ws  syscall.WaitStatus
	)
	conf, err := o.confinement(prog)
	if err != nil {
		return nil, err
	}
	defer conf.Close()
	if s.Stdin == nil && directSpawn {
		pid, ws, err = o.runDirect(ctx, onThread(conf), prog, s.Argv, env, s.Dir, stdout, stderr)
	} else {
		pid, ws, err = o.runCmd(ctx, onThread(conf), prog, s.Argv, s, env, stdout, stderr)
	}
	if err != nil {
		stdout.discard()
		return nil, err
	}
	res := &Result{Pid: pid, Dur: time.Since(start)}
	if err := cmp.Or(stdout.memErr, stderr.memErr); err != nil {
		stdout.discard()
		return nil, fmt.Errorf("run %s: capturing output: %w", prog, err)
	}
	if ws.Signaled() {
		res.Signal = signalName(ws.Signal())
	} else {
		code := ws.ExitStatus()
		res.Status = &code
	}
	res.Stdout, res.Stderr = stdout.buf, stderr.buf
	res.Truncated = stdout.truncated || stderr.truncated
	res.SpillPath = stdout.finish()
	return res, nil
}

// runCmd runs the child through os/exec: the path for a child with a
// stdin to feed, and for systems without the direct path (runDirect),
// forked on t (see contain.Scope.StartOn).
// os/exec's goroutines copy the pipes into the captures.
func (o *OS) runCmd(ctx context.Context, t contain.Thread, prog string, argv []string, s *Spawn, env []string, stdout, stderr *capture) (int, syscall.WaitStatus, error) {
	cmd := &exec.Cmd{
		Path:        prog,
		Args:        argv,
		Env:         env,
		Dir:         s.Dir,
		Stdin:       s.Stdin,
		Stdout:      stdout,
		Stderr:      stderr,
		SysProcAttr: o.procAttr(),
		WaitDelay:   o.waitDelay,
	}
	proc, err := o.procs.StartOn(t, cmd)
	if err != nil {
		return 0, 0, fmt.Errorf("run: %w", err)
	}
	g := &group{proc: proc, grace: o.killGrace}
	stop := context.AfterFunc(ctx, g.cancel)
	release := reportGroup(ctx, g)
	werr := cmd.Wait()
	stop()
	release()
	g.finish()
	var exitErr *exec.ExitError
	if werr != nil && !errors.As(werr, &exitErr) && !errors.Is(werr, exec.ErrWaitDelay) {
		return 0, 0, fmt.Errorf("run %s: %w", prog, werr)
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return cmd.Process.Pid, ws, nil
}

// checkSpawn asks proc_spawn for s and checks it names an absolute
// program, which it returns.
func (o *OS) checkSpawn(ctx context.Context, s *Spawn) (string, error) {
	if s == nil || len(s.Argv) == 0 {
		return "", errors.New("run: empty argv")
	}
	prog := s.Argv[0]
	if err := o.authorize(ctx, Op{Effect: ProcSpawn, Target: prog, Argv: s.Argv}); err != nil {
		return "", err
	}
	if !filepath.IsAbs(prog) {
		return "", fmt.Errorf("run %q: %w", prog, ErrNotAbsolute)
	}
	return prog, nil
}

// group escalates cancellation over a child's tree: SIGTERM at once,
// SIGKILL after grace, and a final SIGKILL sweep once the child is reaped
// so that nothing that ignored SIGTERM survives. The child's own pid and
// group are signalled only until finish (after which they may be reused);
// its cgroup and remembered descendants are identified by more than a pid.
type group struct {
	proc      *contain.Proc
	grace     time.Duration
	mu        sync.Mutex
	done      bool
	cancelled bool
	timer     *time.Timer
}

func (g *group) cancel() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done {
		return
	}
	g.cancelled = true
	g.proc.Signal(unix.SIGTERM)
	// A suspended tree cannot act on SIGTERM until it runs again, as a
	// shell's kill does for stopped jobs.
	g.proc.Signal(unix.SIGCONT)
	g.timer = time.AfterFunc(g.grace, g.kill)
}

// signal sends sig to the tree unless the child has been reaped or the
// tree is being cancelled.
func (g *group) signal(sig unix.Signal) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done || g.cancelled {
		return nil
	}
	g.proc.Signal(sig)
	return nil
}

func (g *group) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.done {
		g.proc.Kill()
	}
}

// finish is called once the child has been reaped.
func (g *group) finish() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.done = true
	g.proc.Reaped()
	if g.cancelled {
		g.timer.Stop()
		g.proc.Kill()
	}
}

// ProcessGroup is the process group of a child Run has started, as a task
// controller sees it: Suspend stops every member (SIGSTOP), Resume
// continues them (SIGCONT). Both do nothing once the child has been reaped
// or its run cancelled, so a stale ProcessGroup never signals a reused
// group id.
type ProcessGroup struct{ g *group }

// ID is the process group id (the child's pid).
func (p ProcessGroup) ID() int { return p.g.proc.Pid() }

// Suspend stops every process in the child's tree.
func (p ProcessGroup) Suspend() error { return p.g.signal(unix.SIGSTOP) }

// Resume continues every process in the child's tree.
func (p ProcessGroup) Resume() error { return p.g.signal(unix.SIGCONT) }

// GroupHook is told of each process group Run starts under a context
// carrying it (see WithGroupHook), with that Run's context; Run calls the
// release it returns (which may be nil) once the child has exited, before
// the group can be signalled no more.
type GroupHook func(ctx context.Context, pg ProcessGroup) (release func())

type groupHookKey struct{}

// WithGroupHook returns a context under which every Run reports the
// process group it starts to h: the kernel uses it to let task.suspend and
// task.resume stop and continue a task's processes.
func WithGroupHook(ctx context.Context, h GroupHook) context.Context {
	return context.WithValue(ctx, groupHookKey{}, h)
}

// reportGroup tells ctx's GroupHook, if any, of g and returns the release
// to call when g's child has exited.
func reportGroup(ctx context.Context, g *group) func() {
	h, _ := ctx.Value(groupHookKey{}).(GroupHook)
	if h == nil {
		return func() {}
	}
	if release := h(ctx, ProcessGroup{g}); release != nil {
		return release
	}
	return func() {}
}
