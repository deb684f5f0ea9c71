package contain

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ErrClosed is returned by Start on a closed Scope or Manager.
var ErrClosed = errors.New("contain: closed")

// Manager is the containment of one process: the cgroup directory (if any)
// every Scope's processes live under, the reaper of inherited orphans, and
// the supervisor. Its methods are safe for concurrent use; a nil *Manager
// gives nil Scopes, which still start children with Pdeathsig and end
// their trees through /proc.
type Manager struct {
	cg        *cgroups // nil: no cgroup hierarchy usable
	subreaper bool
	// clonePlace: v2 children are placed in their cgroup by clone3
	// (CLONE_INTO_CGROUP); cleared if that fails once, after which they
	// are moved there just after start, as with v1.
	clonePlace atomic.Bool

	mu        sync.Mutex
	closed    bool
	scopes    map[*Scope]struct{}
	nextScope int
	stop      chan struct{} // closed by Close: stops the poller

	superPid   atomic.Int64 // the supervisor's pid while it runs; 0 otherwise
	superMu    sync.Mutex
	superWrite *os.File // held open for the process's life: its closing is the signal
}

// New sets up containment as cfg asks, using what the machine offers; it
// never fails, and Features says what it got.
func New(cfg Config) *Manager {
	m := &Manager{scopes: map[*Scope]struct{}{}, stop: make(chan struct{})}
	if cfg.Cgroups {
		name := cfg.Name
		if name == "" {
			name = "shoal"
		}
		m.cg = detectCgroups(name)
		if m.cg != nil && m.cg.kind == cgV2 {
			m.clonePlace.Store(canMigrate(m.cg.root))
		}
	}
	if cfg.Subreaper {
		// With a v2 cgroup per command the reaper need not hear every
		// SIGCHLD (see startReaper); without one it listens, as before.
		m.subreaper = startReaper(m.cg == nil || m.cg.kind != cgV2) == nil
	}
	if m.cg == nil {
		go m.poll()
	}
	return m
}

// canMigrate reports whether this process may move processes from its own
// cgroup into dir (write access to both cgroup.procs files), which
// CLONE_INTO_CGROUP needs.
func canMigrate(dir string) bool {
	parent := dir[:len(dir)-len("/"+lastElem(dir))]
	return unix.Access(parent+"/cgroup.procs", unix.W_OK) == nil && unix.Access(dir+"/cgroup.procs", unix.W_OK) == nil
}

func lastElem(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// Features reports the mechanisms in force.
func (m *Manager) Features() Features {
	if m == nil {
		return Features{Pdeathsig: true, Cgroup: "none", Walk: true}
	}
	return Features{
		Subreaper:  m.subreaper,
		Pdeathsig:  true,
		Cgroup:     m.cg.describe(),
		Walk:       true,
		Supervisor: m.superPid.Load() != 0,
	}
}

// NewScope returns an empty scope (one session's processes). On a nil or
// closed Manager it returns a nil Scope, which contains nothing but still
// starts processes.
func (m *Manager) NewScope() *Scope { return m.NewScopeCharged(nil) }

// NewScopeCharged is NewScope with the descriptors of the scope's pool of
// empty leaves charged to idle (see recycle); nil charges them nowhere.
func (m *Manager) NewScopeCharged(idle *IdleFDs) *Scope {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.nextScope++
	s := &Scope{m: m, name: "s" + strconv.Itoa(m.nextScope), procs: map[*Proc]struct{}{}, idle: idle}
	m.scopes[s] = struct{}{}
	return s
}

// Close ends every process of every scope and removes the Manager's
// cgroups. With Subreaper it also ends every other descendant of this
// process but the supervisor: they can only have come from its children.
// Later Starts fail with ErrClosed.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	close(m.stop)
	scopes := make([]*Scope, 0, len(m.scopes))
	for s := range m.scopes {
		scopes = append(scopes, s)
	}
	m.mu.Unlock()
	if m.cg != nil {
		m.cg.kill(m.cg.root)
	}
	for _, s := range scopes {
		s.Close()
	}
	if m.subreaper {
		m.KillDescendants()
	}
	if m.cg != nil {
		_ = m.cg.remove(m.cg.root, DrainTimeout)
	}
}

// KillDescendants sends SIGKILL to every descendant of this process except
// the supervisor, in rounds until none is found.
func (m *Manager) KillDescendants() {
	self := os.Getpid()
	super := int(m.superPid.Load())
	for range killRounds {
		t, err := table()
		if err != nil {
			return
		}
		found := false
		for _, p := range descendants(t, self) {
			if p.pid == super || p.ppid == super && super != 0 || p.state == 'Z' || p.state == 'X' {
				continue
			}
			found = true
			signalProc(p, unix.SIGKILL)
		}
		if !found {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// poll collects, when no cgroup tracks them, the descendants of every
// started process, so that those that leave their tree (their parent
// exits and they are re-parented) are still known to belong to it.
func (m *Manager) poll() {
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-tick.C:
		}
		procs := m.liveProcs()
		if len(procs) == 0 {
			continue
		}
		t, err := table()
		if err != nil {
			continue
		}
		for _, p := range procs {
			p.collect(t)
		}
	}
}

func (m *Manager) liveProcs() []*Proc {
	m.mu.Lock()
	scopes := make([]*Scope, 0, len(m.scopes))
	for s := range m.scopes {
		scopes = append(scopes, s)
	}
	m.mu.Unlock()
	var out []*Proc
	for _, s := range scopes {
		s.mu.Lock()
		for p := range s.procs {
			out = append(out, p)
		}
		s.mu.Unlock()
	}
	return out
}

// Scope is the processes of one session. A nil *Scope is valid: it starts
// processes without tracking them beyond their Proc.
type Scope struct {
	m    *Manager
	name string

	mu     sync.Mutex
	closed bool
	dir    string     // the scope's cgroup directory, made at the first Start
	free   []freeLeaf // empty leaves below dir to reuse (see recycle)
	idle   *IdleFDs   // where the descriptors of free are charged; nil: nowhere
	procs  map[*Proc]struct{}
	next   int
}

// freeLeaf is an empty leaf kept for reuse, with its descriptors.
type freeLeaf struct {
	dir string
	fds leafFDs
}

// Start starts cmd in the scope: with Pdeathsig SIGKILL, forked from the
// spawning thread, in a cgroup of its own when the Manager has them. cmd
// must not have been started; its SysProcAttr is kept and extended.
func (s *Scope) Start(cmd *exec.Cmd) (*Proc, error) { return s.StartOn(nil, cmd) }

// StartOn is Start with the child forked on thread t (the spawning
// thread when t is nil), which stays until the child is Reaped. Nothing
// is opened on t: cmd's nil Stdin, Stdout and Stderr, which os/exec would
// open as the null device while starting, are set to one shared null
// device opened here.
func (s *Scope) StartOn(t Thread, cmd *exec.Cmd) (*Proc, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	how := onSpawningThread
	if t != nil {
		null, err := nullFile()
		if err != nil {
			return nil, fmt.Errorf("start: %w", err)
		}
		if cmd.Stdin == nil {
			cmd.Stdin = null
		}
		if cmd.Stdout == nil {
			cmd.Stdout = null
		}
		if cmd.Stderr == nil {
			cmd.Stderr = null
		}
		how = forker{thread: t}
	}
	fresh := *cmd
	return s.start(cmd.SysProcAttr, startCmd(cmd), func() { *cmd = fresh }, how)
}

// forker says which thread forks a child: the spawning thread (the zero
// forker), the caller's own (here, locked by the caller until the child
// is reaped), or a Thread, kept until the child is reaped.
type forker struct {
	here   bool
	thread Thread
}

var onSpawningThread = forker{}

// nullFile is the null device, opened once, shared as the standard
// stream StartOn gives a command without one. (A sync.Once, not
// sync.OnceValues: this package has no initialiser; see children.)
func nullFile() (*os.File, error) {
	null.Do(func() { null.f, null.err = os.OpenFile(os.DevNull, os.O_RDWR, 0) })
	return null.f, null.err
}

var null struct {
	sync.Once
	f   *os.File
	err error
}

// startCmd is the fork of an os/exec command.
func startCmd(cmd *exec.Cmd) func() (int, error) {
	return func() (int, error) {
		if err := cmd.Start(); err != nil {
			return 0, err
		}
		return cmd.Process.Pid, nil
	}
}

// RunProcess starts argv0 with argv and attr (whose Sys is kept and
// extended, as Start does with SysProcAttr) with the containment of Start,
// and calls wait, which must reap the child (Wait4, or the pidfd
// attr.Sys.PidFD asks for) before it returns; the caller closes
// attr.Files. It is for a caller that waits for its child itself, on the
// same goroutine: rather than hand the fork to the spawning thread and
// back (two thread wake-ups), it forks on the calling goroutine's own
// thread, locked to it from the fork until wait returns, so that thread
// cannot exit (and fire the child's Pdeathsig) while the child lives. The
// child counts as Reaped when wait returns.
func (s *Scope) RunProcess(argv0 string, argv []string, attr *syscall.ProcAttr, wait func(*Proc)) error {
	return s.RunProcessOn(nil, argv0, argv, attr, wait)
}

// RunProcessOn is RunProcess with the child forked on thread t, which
// stays until wait has returned, when t is not nil; wait still runs on
// the calling goroutine.
func (s *Scope) RunProcessOn(t Thread, argv0 string, argv []string, attr *syscall.ProcAttr, wait func(*Proc)) error {
	if attr.Sys == nil {
		attr.Sys = &syscall.SysProcAttr{}
	}
	how := forker{here: true}
	if t != nil {
		how = forker{thread: t}
	} else {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	p, err := s.start(attr.Sys, func() (int, error) {
		return syscall.ForkExec(argv0, argv, attr)
	}, func() {
		if attr.Sys.PidFD != nil {
			*attr.Sys.PidFD = -1
		}
	}, how)
	if err != nil {
		return err
	}
	defer p.Reaped()
	wait(p)
	return nil
}

// start is Start and RunProcess: fork returns the child's pid and runs on
// the thread how says; reset undoes what a failed fork left behind before
// it is tried again without cgroup placement.
func (s *Scope) start(attr *syscall.SysProcAttr, fork func() (int, error), reset func(), how forker) (*Proc, error) {
	attr.Pdeathsig = syscall.SIGKILL
	p := &Proc{scope: s, cgFDs: noLeafFDs}
	if s == nil {
		if err := startTracked(fork, p, how); err != nil {
			return nil, err
		}
		p.finishStart(attr)
		return p, nil
	}
	leaf, fds, err := s.leaf()
	if err != nil {
		return nil, err
	}
	p.cg, p.cgFDs = leaf, fds
	cg := s.m.cg
	clone := leaf != "" && cg.kind == cgV2 && s.m.clonePlace.Load()
	if clone {
		// The leaf's own directory descriptor, held open with it (the
		// leaf is this start's alone until p is registered), else one
		// opened for this fork.
		fd := fds.dir
		if fd < 0 {
			if own, oerr := unix.Open(leaf, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); oerr == nil {
				fd = own
				defer unix.Close(own)
			}
		}
		if fd < 0 {
			clone = false
		} else {
			attr.UseCgroupFD, attr.CgroupFD = true, fd
		}
	}
	err = startTracked(fork, p, how)
	if err != nil && clone {
		// Placement at clone refused (a cgroup the kernel will not let
		// this process migrate into): start again without it, and place
		// later children after start.
		s.m.clonePlace.Store(false)
		reset()
		attr.UseCgroupFD, attr.CgroupFD = false, 0
		clone = false
		err = startTracked(fork, p, how)
	}
	if err != nil {
		if leaf != "" {
			s.recycle(leaf, fds, true) // nothing ever ran in it
		}
		return nil, err
	}
	if leaf != "" && !clone {
		_ = cg.add(leaf, p.pid)
	}
	p.finishStart(attr)
	s.mu.Lock()
	s.procs[p] = struct{}{}
	s.mu.Unlock()
	return p, nil
}

// leaf gives the cgroup directory for the next process of the scope (""
// when the Manager has no cgroups) and its descriptors, which pass to the
// caller, pruning the directories of finished processes on the way: an
// empty one from the scope's pool when there is one (checked empty again
// here), else a new one.
func (s *Scope) leaf() (string, leafFDs, error) {
	s.prune()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.m.isClosed() {
		return "", noLeafFDs, ErrClosed
	}
	cg := s.m.cg
	if cg == nil {
		return "", noLeafFDs, nil
	}
	if s.dir == "" {
		dir, err := cg.mkdir(cg.root, s.name)
		if err != nil {
			return "", noLeafFDs, fmt.Errorf("start: %w", err)
		}
		s.dir = dir
	}
	for len(s.free) > 0 {
		l := s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
		s.idle.Release(l.fds.count()) // no longer idle: the caller's, or closed below
		if !cg.populatedLeaf(l.dir, l.fds) {
			return l.dir, l.fds, nil
		}
		// Something was moved in while it waited (only a privileged
		// process can): end it, and make a fresh leaf instead.
		cg.kill(l.dir)
		_ = unix.Rmdir(l.dir)
		l.fds.close()
	}
	s.next++
	dir, err := cg.mkdir(s.dir, "p"+strconv.Itoa(s.next))
	if err != nil {
		return "", noLeafFDs, fmt.Errorf("start: %w", err)
	}
	return dir, cg.openLeaf(dir), nil
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// prune forgets finished processes whose trees are gone, removing their
// cgroup directories.
func (s *Scope) prune() {
	s.mu.Lock()
	var done []*Proc
	for p := range s.procs {
		if p.gone() {
			done = append(done, p)
			delete(s.procs, p)
		}
	}
	s.mu.Unlock()
	for _, p := range done {
		p.dropCgroup()
	}
}

// maxFreeLeaves bounds the empty cgroup directories a scope keeps for
// reuse; their descriptors are also charged to the kernel-wide budget of
// idle descriptors (the scope's IdleFDs).
const maxFreeLeaves = 4

// recycle takes back dir, the cgroup directory of a process tree that is
// gone (every member has exited; no Proc refers to it any more): kept for
// the next process (cgroup v2, up to maxFreeLeaves, while the scope is
// open, when reusable, and when its descriptors fit in the scope's IdleFDs),
// or removed. Reusing a leaf saves its mkdir and
// rmdir, which create and destroy the cgroup's state in the kernel, on
// every spawn. A leaf once killed through cgroup.kill is not reusable:
// Linux (6.18 here) kills every child later cloned into it with
// CLONE_INTO_CGROUP, before it runs (the clone compares the cgroup's kill
// count with the one it read from the parent's cgroup).
func (s *Scope) recycle(dir string, fds leafFDs, reusable bool) {
	if s.m.cg.kind == cgV2 && reusable {
		s.mu.Lock()
		if !s.closed && len(s.free) < maxFreeLeaves && s.idle.Take(fds.count()) {
			s.free = append(s.free, freeLeaf{dir, fds})
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
	_ = unix.Rmdir(dir)
	fds.close()
}

// kill sends SIGKILL to every process of the scope, without waiting.
func (s *Scope) kill() {
	if s == nil {
		return
	}
	s.mu.Lock()
	dir := s.dir
	procs := make([]*Proc, 0, len(s.procs))
	for p := range s.procs {
		procs = append(procs, p)
	}
	s.mu.Unlock()
	if dir != "" {
		s.m.cg.kill(dir)
	}
	for _, p := range procs {
		p.Kill()
	}
}

// Close ends everything the scope started, and everything those processes
// started, then removes the scope's cgroups (waiting at most DrainTimeout
// for the killed to be gone). Later Starts fail with ErrClosed.
func (s *Scope) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.kill()
	s.mu.Lock()
	dir := s.dir
	procs := make([]*Proc, 0, len(s.procs))
	for p := range s.procs {
		procs = append(procs, p)
	}
	clear(s.procs)
	for i := range s.free {
		s.idle.Release(s.free[i].fds.count())
		s.free[i].fds.close()
	}
	s.free = nil // removed with dir
	s.mu.Unlock()
	// No longer listed, the procs will not give their leaves back: close
	// their descriptors now (they go on using the paths).
	for _, p := range procs {
		p.closeCgroupFDs()
	}
	if dir != "" {
		_ = s.m.cg.remove(dir, DrainTimeout)
	}
	s.m.mu.Lock()
	delete(s.m.scopes, s)
	s.m.mu.Unlock()
}

// Proc is one started child and the processes it starts. Its methods are
// safe for concurrent use.
type Proc struct {
	scope *Scope
	pid   int
	pgid  int // the child's own process group, 0 if it has none

	// cg is its cgroup directory ("" none, or given up), read under cgMu
	// shared for as long as it is used, and given up under cgMu held
	// exclusively (dropCgroup), so that a Proc never signals a directory
	// after it has gone back to the scope for another process.
	cgMu  sync.RWMutex
	cg    string
	cgFDs leafFDs // cg's descriptors (leafFDs), with it
	// cgKilled is set once cg was killed through (cgroup.kill): such a
	// leaf is removed, never reused (see recycle).
	cgKilled atomic.Bool

	// released, when the child was forked on a Thread, is closed by
	// Reaped: the Thread may end.
	released chan struct{}

	// session: the child leads a session of its own (Setsid), so every
	// process still in that session descends from it, even one whose
	// parents all exited before a poll saw it (see adoptOrphans).
	session bool

	mu     sync.Mutex
	reaped bool
	known  map[int]uint64 // descendants seen, by pid, with their start times
}

// Pid is the child's pid.
func (p *Proc) Pid() int { return p.pid }

// finishStart records what the start asked for. The child's own pid needs
// no start time to stay unambiguous: it is signalled only until Reaped,
// while the pid cannot be reused.
func (p *Proc) finishStart(attr *syscall.SysProcAttr) {
	if attr.Setpgid && attr.Pgid == 0 || attr.Setsid { // a new session is a new group too
		p.pgid = p.pid
	}
	p.session = attr.Setsid
}

// withCgroup calls fn with the Manager's hierarchy and p's directory in
// it, and reports whether it did: not when p has none (any more).
func (p *Proc) withCgroup(fn func(cg *cgroups, dir string)) bool {
	if p.scope == nil {
		return false
	}
	p.cgMu.RLock()
	defer p.cgMu.RUnlock()
	if p.cg == "" {
		return false
	}
	fn(p.scope.m.cg, p.cg)
	return true
}

// populatedCgroup reports whether any process is in p's cgroup directory,
// false when p has none (any more).
func (p *Proc) populatedCgroup() bool {
	if p.scope == nil {
		return false
	}
	p.cgMu.RLock()
	defer p.cgMu.RUnlock()
	if p.cg == "" {
		return false
	}
	return p.scope.m.cg.populatedLeaf(p.cg, p.cgFDs)
}

// closeCgroupFDs closes the descriptors of p's cgroup directory, which p
// goes on using by its path.
func (p *Proc) closeCgroupFDs() {
	p.cgMu.Lock()
	if p.cg != "" {
		p.cgFDs.close()
	}
	p.cgMu.Unlock()
}

// dropCgroup gives p's cgroup directory back to the scope (see recycle)
// once p's tree is gone; from then on p signals no cgroup.
func (p *Proc) dropCgroup() {
	p.cgMu.Lock()
	dir, fds := p.cg, p.cgFDs
	p.cg, p.cgFDs = "", noLeafFDs
	p.cgMu.Unlock()
	if dir != "" {
		p.scope.recycle(dir, fds, !p.cgKilled.Load())
	}
}

// Signal sends sig to the child's process group (or the child), to every
// member of its cgroup, and to every descendant found through /proc or
// seen earlier, whatever group or session they moved to. After Reaped only
// the cgroup and the descendants are signalled, never the reused pid.
func (p *Proc) Signal(sig syscall.Signal) { p.signal(sig) }

// signal is Signal, reporting how many live processes it found.
func (p *Proc) signal(sig syscall.Signal) int {
	// The tree is read before anything is signalled: a parent that dies
	// first would hand its children to another reaper, out of sight.
	var live []procStat
	if t, err := table(); err == nil {
		live = p.collect(t)
	}
	n := 0
	p.mu.Lock()
	reaped := p.reaped
	p.mu.Unlock()
	if !reaped {
		if p.pgid > 0 {
			_ = unix.Kill(-p.pgid, sig)
		}
		_ = unix.Kill(p.pid, sig)
		if st, err := readStat(p.pid); err == nil && st.state != 'Z' && st.state != 'X' {
			n++
		}
	}
	p.withCgroup(func(cg *cgroups, dir string) {
		members := cg.members(dir)
		for _, pid := range members {
			_ = unix.Kill(pid, sig)
		}
		n += len(members)
	})
	for _, d := range live {
		signalProc(d, sig)
	}
	return n + len(live)
}

// Kill ends the child's whole tree with SIGKILL: the cgroup at once, then
// sweeps until a sweep finds nothing alive (bounded rounds).
func (p *Proc) Kill() {
	p.withCgroup(func(cg *cgroups, dir string) {
		p.cgKilled.Store(true)
		cg.kill(dir)
	})
	for range killRounds {
		if p.signal(syscall.SIGKILL) == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// collect records the descendants of p (the child while it is not reaped,
// and those seen before) found in t, drops remembered ones that are gone,
// and returns the live ones.
func (p *Proc) collect(t []procStat) []procStat {
	byPid := make(map[int]procStat, len(t))
	for _, q := range t {
		byPid[q.pid] = q
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var roots []int
	if !p.reaped {
		roots = append(roots, p.pid)
	}
	var live []procStat
	for pid, start := range p.known {
		q, ok := byPid[pid]
		if !ok || q.start != start || q.state == 'Z' {
			delete(p.known, pid)
			continue
		}
		roots = append(roots, pid)
		live = append(live, q)
	}
	for _, q := range append(descendants(t, roots...), p.orphansIn(t)...) {
		if q.state == 'Z' {
			continue
		}
		if _, ok := p.known[q.pid]; ok {
			continue
		}
		if p.known == nil {
			p.known = map[int]uint64{}
		}
		if len(p.known) < MaxKnownPerProc {
			p.known[q.pid] = q.start
		}
		live = append(live, q)
	}
	return live
}

// gone reports whether nothing of p's tree runs: the child is reaped, its
// cgroup is empty and no remembered descendant lives.
func (p *Proc) gone() bool {
	p.mu.Lock()
	reaped := p.reaped
	known := make([]procStat, 0, len(p.known))
	for pid, start := range p.known {
		known = append(known, procStat{pid: pid, start: start})
	}
	p.mu.Unlock()
	if !reaped {
		return false
	}
	if p.populatedCgroup() {
		return false
	}
	for _, q := range known {
		if alive(q) {
			return false
		}
	}
	if len(known) > 0 {
		t, err := table()
		if err == nil && len(descendants(t, pidsOf(known)...)) > 0 {
			return false
		}
	}
	return true
}

// orphansIn returns the processes of t in the session p's child leads
// that were re-parented to this process (a subreaper): descendants whose
// parents exited before a walk saw them. They are p's alone: only a
// descendant of a session's leader can be in its session, and a child of
// this process that contain started has a Proc of its own (and leads its
// own session or shares this process's). Called with p.mu held.
func (p *Proc) orphansIn(t []procStat) []procStat {
	if !p.session {
		return nil
	}
	self := os.Getpid()
	var out []procStat
	for _, q := range t {
		if q.sid == p.pid && q.ppid == self && q.pid != p.pid && !startedHere(q.pid) {
			out = append(out, q)
		}
	}
	return out
}

// startedHere reports whether pid is a child contain started and tracks.
func startedHere(pid int) bool {
	childMu.Lock()
	defer childMu.Unlock()
	_, ok := children[pid]
	return ok
}

func pidsOf(ps []procStat) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p.pid
	}
	return out
}

// Reaped tells p that its child has been waited for: from now on its pid
// is never signalled (it may be reused), and the reaper may reap a reused
// pid. The rest of the tree stays in the scope until it is gone.
func (p *Proc) Reaped() {
	if p.markReaped() {
		p.settle()
	}
}

// markReaped is the part of Reaped that must not wait: from here on the
// child is never signalled by its pid (which may be reused), a Thread it
// was forked on may end, and the reaper no longer stands back for it. It
// reports false when the child was already marked.
func (p *Proc) markReaped() bool {
	p.mu.Lock()
	if p.reaped {
		p.mu.Unlock()
		return false
	}
	p.reaped = true
	p.mu.Unlock()
	if p.released != nil {
		close(p.released)
	}
	untrack(p)
	if p.session && !p.withCgroup(func(*cgroups, string) {}) {
		// Without a cgroup, the child's orphans are found only through
		// its session: remember them before it is forgotten.
		if t, err := table(); err == nil {
			p.collect(t)
		}
	}
	return true
}

// settle is the rest of Reaped: when nothing of the child's tree is left,
// the scope forgets it and its cgroup leaf goes back to the scope's pool
// (or is removed). Until it runs the scope still lists the child; the
// scope's Close and its next start's prune treat it as they treat any
// finished child whose tree they find gone.
func (p *Proc) settle() {
	defer reapAfterCommand()
	if p.scope != nil && p.gone() {
		p.scope.mu.Lock()
		_, listed := p.scope.procs[p]
		delete(p.scope.procs, p)
		p.scope.mu.Unlock()
		if listed {
			p.dropCgroup()
		}
	}
}

// The children this process started through contain, by pid, so that the
// reaper leaves them to whoever waits for them.
var (
	// startMu is held shared from fork to registration and exclusively by
	// the reaper, so the reaper never sees a child of ours unregistered.
	startMu sync.RWMutex
	childMu sync.Mutex
	// children is made at the first registration: a map literal here would
	// be built by a package initialiser at every start of every binary.
	children map[int]*Proc
)

// startTracked runs fork on the thread how says and registers the child
// as p: on the spawning thread, which registers it before it can next
// consider ending; with here on the calling thread (locked by the caller
// until the child is reaped); or on how.thread, which registers it and
// then waits until p is Reaped before it lets the thread end.
func startTracked(fork func() (int, error), p *Proc, how forker) error {
	startMu.RLock()
	defer startMu.RUnlock()
	switch {
	case how.thread != nil:
		return forkOn(how.thread, fork, p)
	case !how.here:
		return spawn(fork, p)
	}
	pid, err := fork()
	if err != nil {
		return err
	}
	register(p, pid)
	return nil
}

func register(p *Proc, pid int) {
	p.pid = pid
	childMu.Lock()
	if children == nil {
		children = map[int]*Proc{}
	}
	children[pid] = p
	childMu.Unlock()
}

// forkOn runs fork on thread t, registering the child there, and keeps t
// (and so the child's Pdeathsig) until p is Reaped.
func forkOn(t Thread, fork func() (int, error), p *Proc) error {
	warmPidfd()
	released := make(chan struct{})
	p.released = released
	done := make(chan error, 2)
	go func() {
		err := t(func() {
			pid, err := fork()
			if err == nil {
				register(p, pid)
			}
			done <- err
			if err == nil {
				<-released
			}
		})
		if err != nil {
			done <- err
		}
	}()
	return <-done
}

// warmPidfd makes package os find out, once and on an ordinary thread,
// whether pidfds work (it forks a probe child the first time a process is
// started or found), rather than on the first Thread that starts a
// command. (A sync.Once, not sync.OnceFunc: see children.)
func warmPidfd() {
	warmPidfdOnce.Do(func() {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Release()
		}
	})
}

var warmPidfdOnce sync.Once

func untrack(p *Proc) {
	childMu.Lock()
	if children[p.pid] == p {
		delete(children, p.pid)
	}
	childMu.Unlock()
}

// The spawning thread: one goroutine locked to its OS thread forks every
// child, so that Pdeathsig (sent when the forking thread exits, not the
// process) fires only when the process dies. The goroutine ends, and its
// thread with it, only when it has been idle for spawnIdle and no child it
// forked is still unreaped.
var (
	spawnMu   sync.Mutex
	spawnReqs chan spawnReq // nil while no spawning thread runs
)

const spawnIdle = 500 * time.Millisecond

type spawnReq struct {
	fork func() (int, error)
	proc *Proc
	done chan error
}

// spawn runs fork on the spawning thread and registers the child as p.
func spawn(fork func() (int, error), p *Proc) error {
	done := make(chan error, 1)
	spawnMu.Lock()
	if spawnReqs == nil {
		spawnReqs = make(chan spawnReq)
		go spawnLoop(spawnReqs)
	}
	// The loop ends only while holding spawnMu, so it receives this.
	spawnReqs <- spawnReq{fork: fork, proc: p, done: done}
	spawnMu.Unlock()
	return <-done
}

func spawnLoop(reqs chan spawnReq) {
	runtime.LockOSThread() // never unlocked: the thread ends with the loop
	idle := time.NewTimer(spawnIdle)
	defer idle.Stop()
	for {
		select {
		case r := <-reqs:
			pid, err := r.fork()
			if err == nil {
				// Registered here, on this thread, so that the loop never
				// ends while a child it forked is alive and unrecorded.
				register(r.proc, pid)
			}
			r.done <- err
			idle.Reset(spawnIdle)
		case <-idle.C:
			// A sender holding spawnMu is waiting for the loop to receive:
			// never block on the lock here.
			if spawnMu.TryLock() {
				childMu.Lock()
				none := len(children) == 0
				childMu.Unlock()
				if none {
					spawnReqs = nil
					spawnMu.Unlock()
					return
				}
				spawnMu.Unlock()
			}
			idle.Reset(spawnIdle)
		}
	}
}

// startReaper makes this process a child subreaper and reaps the exited
// children it did not start itself, the orphans it inherits: by peeking at
// the exited children with waitid (reapExited) and, every second, or when
// such peeks keep stopping at an unreaped child of ours, through the
// process table (reapOrphans).
//
// With listen it peeks on every SIGCHLD (signal.Notify), so an orphan is
// reaped as it exits. Without it (a Manager whose every command runs in a
// cgroup v2 leaf of its own) it does not subscribe: every SIGCHLD would
// otherwise wake os/signal's thread and then hand its P to another thread,
// two thread wake-ups in the few hundred microseconds between a command's
// exit and its answer. Orphans are then reaped when a command ends (its
// owner's goroutine peeks once after the answer: reapAfterCommand), on the
// one-second tick, and, once a look has reaped one, every reapRetry until a
// look finds none, so that a tree making orphans in a loop is reaped at
// that pace. Once any Manager asks to listen, the process listens.
func startReaper(listen bool) error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("subreaper: %w", err)
	}
	reaperOnce.Do(func() {
		reaperSigs = make(chan os.Signal, 1)
		reaperKick = make(chan struct{}, 1)
		go reaperLoop(reaperSigs, reaperKick)
		reaperOn.Store(true)
	})
	if listen {
		listenOnce.Do(func() {
			signal.Notify(reaperSigs, unix.SIGCHLD)
			reaperListens.Store(true)
		})
	}
	return nil
}

func reaperLoop(sigs <-chan os.Signal, kick <-chan struct{}) {
	tick := time.NewTicker(time.Second)
	retry := time.NewTimer(0)
	<-retry.C
	var gate walkGate
	// again arms the retry when the reaper does not hear SIGCHLD and the
	// look just made reaped orphans: more may be exiting.
	again := func(reaped int) {
		if reaped > 0 && !reaperListens.Load() {
			retry.Reset(reapRetry)
		}
	}
	for {
		select {
		case <-sigs:
			if _, blocked := reapExited(); blocked {
				// One of ours, not yet waited for by its owner,
				// hides those behind it: its owner is about to
				// reap it, so look again in a moment.
				retry.Reset(reapRetry)
			} else {
				gate.clear()
			}
		case <-kick:
			// A command's end reaped orphans (reapAfterCommand).
			retry.Reset(reapRetry)
		case <-retry.C:
			n, blocked := reapExited()
			if !blocked {
				gate.clear()
				again(n)
				break
			}
			// One of ours is in front again: under a stream of
			// spawns it is mostly a newer one its owner reaps
			// within the next retry, which then reaps whatever
			// was behind it at the cost of a system call or two.
			// Only one that stays (reapWalkAfter retries in a
			// row) makes the reaper read the process table.
			if !gate.blocked() {
				retry.Reset(reapRetry)
				break
			}
			again(n + reapOrphans())
		case <-tick.C:
			n, blocked := reapExited()
			if blocked {
				n += reapOrphans()
			}
			again(n)
		}
	}
}

var (
	reaperOnce, listenOnce sync.Once
	reaperSigs             chan os.Signal
	reaperKick             chan struct{}
	// reaperOn: this process is a subreaper and reaps what it did not
	// start; reaperListens: it does so on every SIGCHLD.
	reaperOn, reaperListens atomic.Bool
)

// reapAfterCommand is the reaper's look at a command's end, run by its
// owner after the command is reaped (for an exec, after its answer is
// sent): it reaps the orphans already exited, which the reaper, not
// listening for SIGCHLD, would otherwise reap only at its next tick. When
// it reaped any it wakes the reaper, which then looks every reapRetry
// until a look finds none. It does nothing when the reaper listens (it
// has looked already) or does not run (the exited children are not this
// package's to reap).
func reapAfterCommand() {
	if !reaperOn.Load() || reaperListens.Load() {
		return
	}
	if n, _ := reapExited(); n > 0 {
		select {
		case reaperKick <- struct{}{}:
		default:
		}
	}
}

// reapRetry is how long after a SIGCHLD the reaper looks again when an
// exited child of ours (about to be reaped by whoever started it) stood in
// front of the others; and, not listening for SIGCHLD, how long after a
// look that reaped orphans it looks again.
const reapRetry = 20 * time.Millisecond

// reapWalkAfter is how many retries in a row must find one of our exited
// children in front before the reaper reads the process table
// (reapOrphans: an open and a read per process on the machine, ~1 ms)
// rather than looking again: an orphan behind an exited child its owner
// is slow to wait for stays a zombie at most reapWalkAfter*reapRetry.
const reapWalkAfter = 3

// walkGate counts the reaper's retries in a row that found one of our
// exited children in front (see reapWalkAfter).
type walkGate struct{ stuck int }

// clear records a look that found none of ours in front.
func (g *walkGate) clear() { g.stuck = 0 }

// blocked records a retry that found one of ours in front and reports
// whether the reaper should read the process table now: on the
// reapWalkAfter-th such retry in a row, after which the count starts over.
func (g *walkGate) blocked() bool {
	if g.stuck++; g.stuck < reapWalkAfter {
		return false
	}
	g.stuck = 0
	return true
}

// maxReapPerPeek bounds the orphans one reapExited reaps before it yields.
const maxReapPerPeek = 4096

// reapExited reaps the exited children contain did not start, as they
// come first among this process's exited children (waitid P_ALL with
// WNOWAIT names one without reaping it), and reports how many it reaped
// and whether it stopped at one of contain's, which its own waiter reaps:
// the exited children after it are out of the peek's sight. It costs a
// system call or two where reading the process table (reapOrphans) costs
// one open and read per process on the machine. Its first peek takes no
// lock: only reaping must exclude forks (startMu), so that a child of
// ours is never taken for an orphan before it is registered.
func reapExited() (reaped int, blocked bool) {
	switch pid := peekExited(); {
	case pid <= 0:
		return 0, false // no child, or none exited
	case startedHere(pid):
		return 0, true
	}
	startMu.Lock()
	defer startMu.Unlock()
	for range maxReapPerPeek {
		pid := peekExited()
		if pid <= 0 {
			return reaped, false
		}
		if startedHere(pid) {
			return reaped, true
		}
		var ws unix.WaitStatus
		if got, _ := unix.Wait4(pid, &ws, unix.WNOHANG, nil); got == pid {
			reaped++
		}
	}
	return reaped, false
}

// peekExited names an exited child of this process without reaping it: its
// pid, or 0 when none has exited (or there is no child).
func peekExited() int {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0
		}
		return siginfoPid(&info)
	}
}

// siginfoPid is si_pid of a SIGCHLD siginfo: the first field of the union
// after si_signo, si_errno and si_code, aligned as a pointer.
func siginfoPid(info *unix.Siginfo) int {
	const align = unsafe.Sizeof(uintptr(0))
	off := (unsafe.Offsetof(info.Code) + unsafe.Sizeof(info.Code) + align - 1) &^ (align - 1)
	return int(*(*int32)(unsafe.Add(unsafe.Pointer(info), off)))
}

// reapOrphans waits for every exited child that contain did not start,
// found through the process table, and reports how many it reaped.
func reapOrphans() (reaped int) {
	self := os.Getpid()
	t, err := table()
	if err != nil {
		return 0
	}
	startMu.Lock()
	defer startMu.Unlock()
	for _, p := range t {
		if p.ppid != self || p.state != 'Z' {
			continue
		}
		childMu.Lock()
		_, ours := children[p.pid]
		childMu.Unlock()
		if ours {
			continue
		}
		var ws unix.WaitStatus
		if got, _ := unix.Wait4(p.pid, &ws, unix.WNOHANG, nil); got == p.pid {
			reaped++
		}
	}
	return reaped
}

// Kill sends SIGKILL to everything the Manager contains (and, with
// Subreaper, every other descendant but the supervisor) without waiting
// for anything: the last act of a process about to exit. The supervisor
// removes the cgroups once it has.
func (m *Manager) Kill() {
	if m == nil {
		return
	}
	if m.cg != nil {
		m.cg.kill(m.cg.root)
	}
	for _, p := range m.liveProcs() {
		p.Signal(syscall.SIGKILL)
	}
	if m.subreaper {
		m.KillDescendants()
	}
}
