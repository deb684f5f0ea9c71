package host

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ErrNotAbsolute is returned by Run when Argv[0] is not an absolute path;
// resolve names with LookPath first.
var ErrNotAbsolute = errors.New("program path is not absolute")

// Run spawns s.Argv without a shell (proc_spawn argv[0] with the argv), in
// its own process group, with exactly s.Env (nil means empty) and s.Dir,
// and waits for it.
//
// Stdout and stderr are drained concurrently, each kept in memory up to the
// capture bound; stdout beyond it spills to a temporary file (SpillPath,
// owned and removed by the caller; none with s.NoSpill) and Truncated is
// set. The child never
// blocks on a full pipe, and memory stays bounded whatever it prints.
//
// When ctx is cancelled the whole group gets SIGTERM, then SIGKILL after
// the kill grace; Run still reaps the child and returns its Result (a
// signal death) with a nil error: callers check ctx.Err() to tell a
// cancellation from a crash. Descendants that outlive the child and hold its
// pipes open are cut off after the wait delay.
//
// A non-nil error means the process could not be run or its I/O failed
// (for example the Stdin reader); a nonzero exit or signal death is a
// Result, not an error. On error no spill file is left behind.
func (o *OS) Run(ctx context.Context, s *Spawn) (*Result, error) {
	if s == nil || len(s.Argv) == 0 {
		return nil, errors.New("run: empty argv")
	}
	prog := s.Argv[0]
	if err := o.authorize(ctx, Op{Effect: ProcSpawn, Target: prog, Argv: s.Argv}); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(prog) {
		return nil, fmt.Errorf("run %q: %w", prog, ErrNotAbsolute)
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
	stdout := &capture{max: limit, tee: tee(s.StreamOut, &mu), spillDir: o.spillDir, spillLimit: spillLimit}
	stderr := &capture{max: limit, tee: tee(s.StreamErr, &mu)}
	env := s.Env
	if env == nil {
		env = []string{}
	}
	cmd := &exec.Cmd{
		Path:        prog,
		Args:        s.Argv,
		Env:         env,
		Dir:         s.Dir,
		Stdin:       s.Stdin,
		Stdout:      stdout,
		Stderr:      stderr,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
		WaitDelay:   o.waitDelay,
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	g := &group{pgid: cmd.Process.Pid, grace: o.killGrace}
	stop := context.AfterFunc(ctx, g.cancel)
	werr := cmd.Wait()
	stop()
	g.finish()
	res := &Result{Pid: cmd.Process.Pid, Dur: time.Since(start)}

	var exitErr *exec.ExitError
	if werr != nil && !errors.As(werr, &exitErr) && !errors.Is(werr, exec.ErrWaitDelay) {
		stdout.discard()
		return nil, fmt.Errorf("run %s: %w", prog, werr)
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
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

// group escalates cancellation over a child's process group: SIGTERM at
// once, SIGKILL after grace, and a final SIGKILL sweep once the child is
// reaped so no member that ignored SIGTERM survives. Signals are sent only
// until finish, which narrows (but cannot close) the window in which the
// group id could be reused.
type group struct {
	pgid      int
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
	_ = unix.Kill(-g.pgid, unix.SIGTERM)
	g.timer = time.AfterFunc(g.grace, g.kill)
}

func (g *group) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.done {
		_ = unix.Kill(-g.pgid, unix.SIGKILL)
	}
}

func (g *group) finish() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.done = true
	if g.cancelled {
		g.timer.Stop()
		_ = unix.Kill(-g.pgid, unix.SIGKILL)
	}
}
