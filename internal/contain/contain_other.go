//go:build !linux

package contain

import (
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// ErrClosed is returned by Start on a closed Scope.
var ErrClosed = errors.New("contain: closed")

// Manager, off Linux, has none of the mechanisms: children are ended
// through their process group only.
type Manager struct{}

// New returns a Manager; off Linux nothing is set up.
func New(Config) *Manager { return &Manager{} }

// Features reports that no mechanism is active.
func (m *Manager) Features() Features { return Features{Cgroup: "none"} }

// NewScope returns an empty scope.
func (m *Manager) NewScope() *Scope { return &Scope{procs: map[*Proc]struct{}{}} }

// NewScopeCharged is NewScope: off Linux a scope keeps no idle leaves.
func (m *Manager) NewScopeCharged(*IdleFDs) *Scope { return m.NewScope() }

// Close does nothing off Linux beyond what each Scope's Close does.
func (m *Manager) Close() {}

// Kill does nothing off Linux.
func (m *Manager) Kill() {}

// KillDescendants is not available off Linux.
func (m *Manager) KillDescendants() {}

// StartSupervisor is not available off Linux.
func (m *Manager) StartSupervisor(string) error {
	return errors.New("supervisor: not supported on this platform")
}

// Deadline is not available off Linux.
func (m *Manager) Deadline(time.Duration) bool { return false }

// RunSupervisor is not available off Linux.
func RunSupervisor([]string) int { return 2 }

// Scope tracks the process groups it started.
type Scope struct {
	mu     sync.Mutex
	closed bool
	procs  map[*Proc]struct{}
}

// Start starts cmd.
func (s *Scope) Start(cmd *exec.Cmd) (*Proc, error) { return s.StartOn(nil, cmd) }

// StartOn is Start; a Thread is refused (there is no OS sandbox to make
// one on this system).
func (s *Scope) StartOn(t Thread, cmd *exec.Cmd) (*Proc, error) {
	if t != nil {
		return nil, errors.New("contain: no forking on a thread of its own on this system")
	}
	if s != nil {
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return nil, ErrClosed
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{scope: s, pid: cmd.Process.Pid}
	if a := cmd.SysProcAttr; a != nil && (a.Setpgid && a.Pgid == 0 || a.Setsid) {
		p.pgid = p.pid
	}
	if s != nil {
		s.mu.Lock()
		s.procs[p] = struct{}{}
		s.mu.Unlock()
	}
	return p, nil
}

// Close kills the groups of the scope's unreaped children.
func (s *Scope) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closed = true
	procs := make([]*Proc, 0, len(s.procs))
	for p := range s.procs {
		procs = append(procs, p)
	}
	s.mu.Unlock()
	for _, p := range procs {
		p.Kill()
	}
}

// Proc is one started child.
type Proc struct {
	scope  *Scope
	pid    int
	pgid   int
	mu     sync.Mutex
	reaped bool
}

// Pid is the child's pid.
func (p *Proc) Pid() int { return p.pid }

// Signal sends sig to the child's group (or the child) until it is reaped.
func (p *Proc) Signal(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return
	}
	if p.pgid > 0 {
		_ = syscall.Kill(-p.pgid, sig)
	}
	_ = syscall.Kill(p.pid, sig)
}

// Kill sends SIGKILL.
func (p *Proc) Kill() { p.Signal(syscall.SIGKILL) }

// Reaped records that the child has been waited for.
func (p *Proc) Reaped() {
	p.mu.Lock()
	p.reaped = true
	p.mu.Unlock()
	if p.scope != nil {
		p.scope.mu.Lock()
		delete(p.scope.procs, p)
		p.scope.mu.Unlock()
	}
}

// ReapedLater is Reaped, done at once: there is nothing to settle later.
func (p *Proc) ReapedLater() (settle func()) {
	p.Reaped()
	return nil
}
