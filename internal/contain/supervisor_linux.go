package contain

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shoalgo/shoal/internal/procname"
)

// maxSupervisorKnown bounds the descendants the supervisor remembers.
const maxSupervisorKnown = 1 << 16

// StartSupervisor starts exe (normally this program, /proc/self/exe) as the
// supervisor: `exe SupervisorCommand <pid> <mode> <dir>` with the read end
// of a pipe as descriptor 3. This process holds the write end until it
// exits, however it exits; the supervisor then ends the Manager's cgroup
// (or, without one, every descendant of this process it has seen) and
// removes it. The program must call RunSupervisor when it sees
// SupervisorCommand as its first argument.
func (m *Manager) StartSupervisor(exe string) error {
	if m == nil {
		return errors.New("supervisor: no manager")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("supervisor: %w", err)
	}
	mode, dir := "none", "-"
	if m.cg != nil {
		dir = m.cg.root
		switch {
		case m.cg.kind == cgV2:
			mode = "v2"
		case m.cg.freezer:
			mode = "v1-freezer"
		default:
			mode = "v1"
		}
	}
	cmd := &exec.Cmd{
		Path:       exe,
		Args:       []string{exe, SupervisorCommand, strconv.Itoa(os.Getpid()), mode, dir},
		Dir:        "/",
		Env:        []string{},
		ExtraFiles: []*os.File{r},
		// Its own group, so a terminal's Ctrl-C aimed at this process does
		// not reach it; no Pdeathsig, since it must outlive this process.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	p := &Proc{}
	if err := startTracked(startCmd(cmd), p, onSpawningThread); err != nil {
		r.Close()
		w.Close()
		return fmt.Errorf("supervisor: %w", err)
	}
	r.Close()
	m.superMu.Lock()
	m.superWrite = w
	m.superMu.Unlock()
	m.superPid.Store(int64(p.pid))
	go func() {
		_ = cmd.Wait()
		m.superPid.Store(0)
		untrack(p)
	}()
	return nil
}

// Deadline asks the supervisor to SIGKILL this process if it has not
// exited within d: a backstop that holds even when this process cannot
// run its own timers (a runtime stalled by a huge allocation, say). It
// reports false when no supervisor runs.
func (m *Manager) Deadline(d time.Duration) bool {
	if m == nil || m.superPid.Load() == 0 {
		return false
	}
	m.superMu.Lock()
	defer m.superMu.Unlock()
	if m.superWrite == nil {
		return false
	}
	_, err := fmt.Fprintf(m.superWrite, "deadline %d\n", d.Milliseconds())
	return err == nil
}

// RunSupervisor is the supervisor's whole life (args are those after
// SupervisorCommand): it waits for descriptor 3 to reach end of file, which
// happens when the process that started it exits, then ends what that
// process left behind and returns the exit status.
func RunSupervisor(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "supervisor: want <pid> <mode> <dir>")
		return 2
	}
	parent, err := strconv.Atoi(args[0])
	if err != nil || parent <= 1 {
		fmt.Fprintln(os.Stderr, "supervisor: bad pid", args[0])
		return 2
	}
	mode, dir := args[1], args[2]
	var cg *cgroups
	switch mode {
	case "v2":
		cg = &cgroups{kind: cgV2, root: dir}
	case "v1-freezer":
		cg = &cgroups{kind: cgV1, root: dir, freezer: true}
	case "v1":
		cg = &cgroups{kind: cgV1, root: dir}
	case "none":
	default:
		fmt.Fprintln(os.Stderr, "supervisor: unknown mode", mode)
		return 2
	}
	// Run from /proc/self/exe it would be "exe" in ps, top and pgrep:
	// it takes a name of its own, distinct from its kernel's, so that
	// pkill shoal-kernel does not end the one process meant to outlive it.
	_ = procname.Set(SupervisorName)
	// Only the end of the pipe ends the supervisor.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	pipe := os.NewFile(3, "supervisor-pipe")
	closed := make(chan struct{})
	deadlines := make(chan time.Duration, 1)
	go func() {
		readPipe(pipe, deadlines)
		close(closed)
	}()

	// Without cgroup v2 placement at clone, what the parent's tree holds is
	// also followed through /proc, so that processes that left it can be
	// found once the parent is gone.
	known := map[int]uint64{}
	self := os.Getpid()
	follow := cg == nil || cg.kind != cgV2
	var tick <-chan time.Time
	if follow {
		t := time.NewTicker(PollInterval)
		defer t.Stop()
		tick = t.C
	}
	var deadline <-chan time.Time
	if os.Getppid() == parent {
	wait:
		for {
			select {
			case <-closed:
				break wait
			case <-tick:
				remember(known, parent, self)
			case d := <-deadlines:
				if deadline == nil {
					deadline = time.After(d)
				}
			case <-deadline:
				// The parent asked to be ended by now; it still holds the
				// pipe, so it is still our parent (not a reused pid).
				if os.Getppid() == parent {
					_ = unix.Kill(parent, unix.SIGKILL)
				}
				deadline = nil
			}
		}
	}
	if cg != nil {
		cg.kill(cg.root)
	}
	if follow {
		killKnown(known)
	}
	if cg != nil {
		_ = cg.remove(cg.root, DrainTimeout)
	}
	return 0
}

// readPipe reads the parent's messages ("deadline <ms>" lines) until end
// of file, passing each deadline on.
func readPipe(r io.Reader, deadlines chan<- time.Duration) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64), 64)
	for sc.Scan() {
		ms, ok := strings.CutPrefix(sc.Text(), "deadline ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(ms, 10, 64); err == nil && n >= 0 {
			select {
			case deadlines <- time.Duration(n) * time.Millisecond:
			default:
			}
		}
	}
	// A line too long or a read error ends the scan early: drain to the
	// end, which is what matters.
	_, _ = io.Copy(io.Discard, r)
}

// remember adds the descendants of parent (but not the supervisor) to
// known, and forgets those that are gone.
func remember(known map[int]uint64, parent, self int) {
	t, err := table()
	if err != nil {
		return
	}
	live := make(map[int]uint64, len(t))
	for _, p := range t {
		live[p.pid] = p.start
	}
	for pid, start := range known {
		if live[pid] != start {
			delete(known, pid)
		}
	}
	for _, p := range descendants(t, parent) {
		if p.pid != self && len(known) < maxSupervisorKnown {
			known[p.pid] = p.start
		}
	}
}

// killKnown sends SIGKILL to every remembered process still running, and
// to its descendants, in rounds until none is left.
func killKnown(known map[int]uint64) {
	for range killRounds {
		t, err := table()
		if err != nil {
			return
		}
		var roots []int
		var targets []procStat
		for _, p := range t {
			if start, ok := known[p.pid]; ok && start == p.start && p.state != 'Z' {
				roots = append(roots, p.pid)
				targets = append(targets, p)
			}
		}
		for _, d := range descendants(t, roots...) {
			if d.state != 'Z' {
				targets = append(targets, d)
				known[d.pid] = d.start
			}
		}
		if len(targets) == 0 {
			return
		}
		for _, p := range targets {
			signalProc(p, unix.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
