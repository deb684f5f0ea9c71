package contain

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMain lets the test binary play the two other programs the tests
// need: the supervisor, and a stand-in for the kernel that starts an
// escaping tree and waits to be killed.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case SupervisorCommand:
			os.Exit(RunSupervisor(os.Args[2:]))
		case "fake-kernel":
			os.Exit(fakeKernel(os.Args[2:]))
		case "quiet-reaper":
			os.Exit(quietReaper())
		}
	}
	os.Exit(m.Run())
}

// fakeKernel sets up containment as the kernel does (args: "cgroups" or
// "plain", and a pid file), starts a shell whose setsid'd child writes its
// pid, says "ready" and waits to be killed.
func fakeKernel(args []string) int {
	m := New(Config{Subreaper: true, Cgroups: args[0] == "cgroups", Name: "shoal-test"})
	if err := m.StartSupervisor("/proc/self/exe"); err != nil {
		fmt.Println("supervisor:", err)
		return 1
	}
	if args[0] == "deadline" {
		m.Deadline(300 * time.Millisecond)
		fmt.Println("ready")
		select {}
	}
	s := m.NewScope()
	cmd := exec.Command("/bin/sh", "-c", "setsid sleep 100 & echo $! > "+args[1]+"; exec sleep 100")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if _, err := s.Start(cmd); err != nil {
		fmt.Println("start:", err)
		return 1
	}
	for !fileHasPid(args[1]) {
		time.Sleep(10 * time.Millisecond)
	}
	// Let the supervisor's poll see the tree when it has to follow it. A
	// poll can be late on a loaded machine (the supervisor is a process of
	// its own); eight intervals leave room for that.
	time.Sleep(8 * PollInterval)
	fmt.Println("ready")
	select {}
}

func fileHasPid(path string) bool {
	_, err := readPidFile(path)
	return err == nil
}

func readPidFile(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	if !strings.HasSuffix(string(b), "\n") {
		return 0, fmt.Errorf("incomplete pid file")
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// waitPid waits for the pid file and returns the process it names.
func waitPid(t *testing.T, path string) procStat {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if pid, err := readPidFile(path); err == nil {
			st, err := readStat(pid)
			if err != nil {
				t.Fatalf("process %d of %s is already gone: %v", pid, path, err)
			}
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", path)
	return procStat{}
}

// waitEscaped waits for the process named in the pid file to have left
// its session (setsid runs just after the shell writes the pid).
func waitEscaped(t *testing.T, path string) procStat {
	t.Helper()
	p := waitPid(t, path)
	for range 300 {
		if st, err := readStat(p.pid); err == nil && st.sid == st.pid {
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d did not leave its session", p.pid)
	return p
}

// wantGone waits up to 3 s for p to be gone (a zombie counts as gone).
func wantGone(t *testing.T, p procStat, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if !alive(p) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(p.pid, syscall.SIGKILL)
	t.Fatalf("%s: process %d survived", what, p.pid)
}

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		line string
		want procStat
		bad  bool
	}{
		{line: "42 (sleep) S 1 42 42 0 -1 4194560 95 0 0 0 0 0 0 0 20 0 1 0 12345 2412544 128 184467",
			want: procStat{pid: 42, ppid: 1, pgid: 42, sid: 42, state: 'S', start: 12345}},
		{line: "7 (a) b) (c) Z 3 5 6 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0 0",
			want: procStat{pid: 7, ppid: 3, pgid: 5, sid: 6, state: 'Z', start: 99}},
		{line: "7 (x) S 1 2", bad: true},
		{line: "garbage", bad: true},
		{line: "x (y) S 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0", bad: true},
	} {
		got, err := parseStat([]byte(tc.line))
		if tc.bad {
			if err == nil {
				t.Errorf("parseStat(%q) = %+v, want an error", tc.line, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v", tc.line, got, err, tc.want)
		}
	}
}

func TestDescendantsDeepChain(t *testing.T) {
	// A chain far deeper than any real process tree (pid_max bounds it at
	// 4 Mi): the walk is a queue, not recursion, so depth costs no stack.
	const n = 100_000
	tab := make([]procStat, n)
	for i := range tab {
		tab[i] = procStat{pid: i + 2, ppid: i + 1}
	}
	tab = append(tab, procStat{pid: n + 100, ppid: 0}) // unrelated
	got := descendants(tab, 1)
	if len(got) != n {
		t.Fatalf("found %d descendants, want %d", len(got), n)
	}
	if d := descendants(tab, n+1); len(d) != 0 {
		t.Fatalf("the leaf has descendants: %v", d[:1])
	}
}

// escapeScript starts a shell that puts a child in a new session (setsid)
// and writes its pid to a file, then waits.
func escapeScript(pidFile string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", "-c", "setsid sleep 100 & echo $! > "+pidFile+"; sleep 100")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

func managers(t *testing.T) map[string]*Manager {
	out := map[string]*Manager{"plain": New(Config{Name: "shoal-test"})}
	if m := New(Config{Cgroups: true, Name: "shoal-test"}); m.cg != nil {
		out["cgroup"] = m
	} else {
		t.Log("no usable cgroup hierarchy: testing without one")
	}
	for _, m := range out {
		t.Cleanup(m.Close)
	}
	return out
}

// TestKillEndsEscapedChild: Kill of a started shell also ends the child it
// moved to a new session.
func TestKillEndsEscapedChild(t *testing.T) {
	for name, m := range managers(t) {
		t.Run(name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			cmd := escapeScript(pidFile)
			p, err := m.NewScope().Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			escaped := waitEscaped(t, pidFile)
			p.Signal(syscall.SIGTERM)
			p.Kill()
			_ = cmd.Wait()
			p.Reaped()
			wantGone(t, escaped, "Kill")
		})
	}
}

// TestScopeCloseEndsOrphans: a child whose shell exited (so it was
// re-parented) is ended when its scope closes, if a cgroup holds it.
func TestScopeCloseEndsOrphans(t *testing.T) {
	m := New(Config{Cgroups: true, Name: "shoal-test"})
	t.Cleanup(m.Close)
	if m.cg == nil {
		t.Skip("no usable cgroup hierarchy")
	}
	s := m.NewScope()
	orphan := startOrphan(t, s, "setsid sleep 100", nil)
	s.Close()
	wantGone(t, orphan, "Scope.Close")
	if _, err := os.Stat(filepath.Join(m.cg.root, s.name)); !os.IsNotExist(err) {
		t.Errorf("the scope's cgroup is still there: %v", err)
	}
	if _, err := s.Start(exec.Command("/bin/true")); err != ErrClosed {
		t.Errorf("Start on a closed scope: %v, want ErrClosed", err)
	}
}

// TestPollFollowsOrphans: without a cgroup, a descendant seen by the poll is
// still killed after its parent exited.
func TestPollFollowsOrphans(t *testing.T) {
	m := New(Config{Name: "shoal-test"})
	t.Cleanup(m.Close)
	s := m.NewScope()
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("/bin/sh", "-c", "setsid sleep 100 & echo $! > "+pidFile+"; sleep 1")
	p, err := s.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	orphan := waitPid(t, pidFile)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	p.Reaped()
	if !alive(orphan) {
		t.Fatal("the orphan died on its own")
	}
	s.Close()
	wantGone(t, orphan, "Scope.Close without cgroups")
}

// TestSupervisorEndsTreeOnSIGKILL kills a stand-in kernel with SIGKILL and
// checks that the child that escaped into its own session is ended too.
func TestSupervisorEndsTreeOnSIGKILL(t *testing.T) {
	for _, mode := range []string{"cgroups", "plain"} {
		t.Run(mode, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			cmd := exec.Command("/proc/self/exe", "fake-kernel", mode, pidFile)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || line != "ready\n" {
				_ = cmd.Process.Kill()
				t.Fatalf("fake kernel: %q, %v", line, err)
			}
			escaped := waitEscaped(t, pidFile)
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			wantGone(t, escaped, "SIGKILL of the kernel")
		})
	}
}

// TestSupervisorDeadline: a process that asked its supervisor for a
// deadline and does not exit by then is killed.
func TestSupervisorDeadline(t *testing.T) {
	cmd := exec.Command("/proc/self/exe", "fake-kernel", "deadline", "-")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("fake kernel: %q, %v", line, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("not killed 5 s after a 300 ms deadline")
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("ended by %v, want SIGKILL", cmd.ProcessState)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("killed after %v, before the deadline", d)
	}
}

// TestReaperReapsOrphans: with Subreaper, an orphan that exits does not stay
// a zombie child of this process.
func TestReaperReapsOrphans(t *testing.T) {
	m := New(Config{Subreaper: true, Name: "shoal-test"})
	t.Cleanup(m.Close)
	if !m.Features().Subreaper {
		t.Skip("subreaper unavailable")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("/bin/sh", "-c", "sleep 0.2 & echo $! > "+pidFile)
	p, err := m.NewScope().Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	p.Reaped()
	orphan := waitPid(t, pidFile)
	if orphan.ppid != os.Getpid() {
		// Re-parenting happens when the shell exits; read again.
		time.Sleep(50 * time.Millisecond)
		orphan, _ = readStat(orphan.pid)
	}
	if orphan.ppid != os.Getpid() {
		t.Fatalf("the orphan was not re-parented here: %+v", orphan)
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if st, err := readStat(orphan.pid); err != nil || st.start != orphan.start {
			return // reaped
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("orphan %d was not reaped", orphan.pid)
}

// TestReaperLeavesOwnChildren: the reaper never takes the exit status of a
// child someone else waits for.
func TestReaperLeavesOwnChildren(t *testing.T) {
	m := New(Config{Subreaper: true, Name: "shoal-test"})
	t.Cleanup(m.Close)
	s := m.NewScope()
	for i := range 50 {
		cmd := exec.Command("/bin/sh", "-c", "exit 3")
		p, err := s.Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
		err = cmd.Wait()
		p.Reaped()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
			t.Fatalf("run %d: exit status lost (%v)", i, err)
		}
	}
}

// TestReaperReapsOrphansBehindOwnZombie: an exited child of ours that
// its owner has not waited for yet (which the reaper's waitid peek stops
// at) neither loses its exit status nor keeps an orphan a zombie: the
// orphan is reaped through the process table.
func TestReaperReapsOrphansBehindOwnZombie(t *testing.T) {
	m := New(Config{Subreaper: true, Name: "shoal-test"})
	t.Cleanup(m.Close)
	if !m.Features().Subreaper {
		t.Skip("subreaper unavailable")
	}
	s := m.NewScope()
	own := exec.Command("/bin/sh", "-c", "exit 7")
	op, err := s.Start(own)
	if err != nil {
		t.Fatal(err)
	}
	// Wait until it is a zombie, without reaping it.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, own.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			if err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("/bin/sh", "-c", "sleep 0.2 & echo $! > "+pidFile)
	p, err := s.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	p.Reaped()
	orphan := waitPid(t, pidFile)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if st, err := readStat(orphan.pid); err != nil || st.start != orphan.start {
			break // reaped
		}
		if time.Now().After(deadline) {
			t.Fatalf("orphan %d was not reaped while an exited child of ours waited", orphan.pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	err = own.Wait()
	op.Reaped()
	if own.ProcessState == nil || own.ProcessState.ExitCode() != 7 {
		t.Fatalf("our own child's exit status was lost (%v)", err)
	}
}

// TestReapExitedStopsAtOwnChild: the waitid peek reaps nothing of
// ours: an exited child contain started, first in the peek's sight (a
// child of the peeking thread), stops it (reported, so that the process
// table is read instead) and keeps its exit status for its waiter.
func TestReapExitedStopsAtOwnChild(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p := &Proc{}
	err := startTracked(func() (int, error) {
		return syscall.ForkExec("/bin/sh", []string{"/bin/sh", "-c", "exit 7"}, &syscall.ProcAttr{})
	}, p, forker{here: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Reaped()
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			if err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if got := siginfoPid(&info); got != p.pid {
		t.Fatalf("siginfoPid = %d, want %d", got, p.pid)
	}
	if _, blocked := reapExited(); !blocked {
		t.Errorf("reapExited did not stop at an exited child of ours")
	}
	var ws unix.WaitStatus
	if _, err := unix.Wait4(p.pid, &ws, 0, nil); err != nil || ws.ExitStatus() != 7 {
		t.Errorf("our child's status: %v %v, want exit 7", ws, err)
	}
	if _, blocked := reapExited(); blocked {
		t.Errorf("reapExited stopped with no exited child of ours left")
	}
}

// TestLeafReuse: with cgroup v2, the leaf of a finished process goes back
// to its scope and the next process starts in it; the finished process's
// Proc no longer reaches it (its Kill leaves the new process alone), and a
// leaf something moved into while it waited is not reused.
func TestLeafReuse(t *testing.T) {
	m := New(Config{Cgroups: true, Name: "shoal-test"})
	t.Cleanup(m.Close)
	if m.cg == nil || m.cg.kind != cgV2 {
		t.Skip("no cgroup v2 hierarchy here")
	}
	s := m.NewScope()
	cgroupOf := func(pid int) string {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	first := exec.Command("/bin/sh", "-c", "cat /proc/self/cgroup")
	var out strings.Builder
	first.Stdout = &out
	p1, err := s.Start(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	p1.Reaped()
	second := exec.Command("/bin/sleep", "100")
	p2, err := s.Start(second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p2.Kill(); second.Wait(); p2.Reaped() })
	if got, want := cgroupOf(second.Process.Pid), strings.TrimSpace(out.String()); got != want {
		t.Errorf("second process in %q, first was in %q: the leaf was not reused", got, want)
	}
	p1.Kill() // the stale Proc: must not reach the reused leaf
	p1.Signal(syscall.SIGKILL)
	if err := second.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the new process in the reused leaf was killed through the old Proc: %v", err)
	}
	// A pooled leaf with a member is not handed out again.
	p2dir := p2.cg
	second.Process.Kill() // not through its cgroup, which would spoil the leaf (TestNoReuseAfterKill)
	second.Wait()
	p2.Reaped()
	intruder := exec.Command("/bin/sleep", "100")
	if err := intruder.Start(); err != nil {
		t.Fatal(err)
	}
	defer intruder.Wait()
	defer intruder.Process.Kill()
	if err := m.cg.add(p2dir, intruder.Process.Pid); err != nil {
		t.Fatal(err)
	}
	third := exec.Command("/bin/true")
	p3, err := s.Start(third)
	if err != nil {
		t.Fatal(err)
	}
	if p3.cg == p2dir {
		t.Errorf("a leaf with a member was reused")
	}
	third.Wait()
	p3.Reaped()
}

// TestLeafFDs: a v2 leaf's directory and cgroup.events descriptors are
// opened once and go with it: a running process's leaf reads populated
// through them, the next process reuses the leaf and the same descriptors,
// and closing the scope closes them.
func TestLeafFDs(t *testing.T) {
	m := New(Config{Cgroups: true, Name: "shoal-test"})
	t.Cleanup(m.Close)
	if m.cg == nil || m.cg.kind != cgV2 {
		t.Skip("no cgroup v2 hierarchy here")
	}
	s := m.NewScope()
	first := exec.Command("/bin/cat")
	in, err := first.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p1, err := s.Start(first)
	if err != nil {
		t.Fatal(err)
	}
	fds, dir := p1.cgFDs, p1.cg
	if fds.dir < 0 || fds.events < 0 {
		t.Fatalf("leaf %s has no descriptors: %+v", dir, fds)
	}
	target := func(fd int) string {
		l, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		return l
	}
	if got := target(fds.events); got != filepath.Join(dir, "cgroup.events") {
		t.Fatalf("events descriptor is %q", got)
	}
	if !p1.populatedCgroup() {
		t.Errorf("a running process's leaf reads as empty")
	}
	in.Close() // cat reads the end and exits
	if err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	p1.Reaped()
	if p1.cg != "" {
		t.Fatalf("the finished process kept its leaf")
	}
	second := exec.Command("/bin/sleep", "100")
	p2, err := s.Start(second)
	if err != nil {
		t.Fatal(err)
	}
	if p2.cg != dir || p2.cgFDs != fds {
		t.Errorf("second process in %s %+v, want the reused %s %+v", p2.cg, p2.cgFDs, dir, fds)
	}
	if !p2.populatedCgroup() {
		t.Errorf("the reused leaf reads as empty with a process in it")
	}
	s.Close()
	second.Wait()
	p2.Reaped()
	if got := target(fds.events); got == filepath.Join(dir, "cgroup.events") {
		t.Errorf("the scope is closed and the leaf's events descriptor is still open")
	}
}

// TestNoReuseAfterKill: a leaf killed through cgroup.kill is not given to
// the next process, which Linux would kill as it is cloned into it; the
// next process runs to its end. Run several times: each round kills one
// process and starts the next.
func TestNoReuseAfterKill(t *testing.T) {
	m := New(Config{Cgroups: true, Name: "shoal-test"})
	t.Cleanup(m.Close)
	if m.cg == nil || m.cg.kind != cgV2 {
		t.Skip("no cgroup v2 hierarchy here")
	}
	s := m.NewScope()
	t.Cleanup(s.Close)
	for i := range 5 {
		sleeper := exec.Command("/bin/sleep", "100")
		p1, err := s.Start(sleeper)
		if err != nil {
			t.Fatal(err)
		}
		killed := p1.cg
		p1.Kill()
		sleeper.Wait()
		p1.Reaped()
		next := exec.Command("/bin/sh", "-c", "exit 7")
		p2, err := s.Start(next)
		if err != nil {
			t.Fatal(err)
		}
		if p2.cg == killed {
			t.Errorf("round %d: the killed leaf %s was reused", i, killed)
		}
		err = next.Wait()
		p2.Reaped()
		if next.ProcessState == nil || next.ProcessState.ExitCode() != 7 {
			t.Fatalf("round %d: the process after a kill did not run to its end: %v", i, err)
		}
	}
}

// TestStartOnThread: a child forked on a Thread of its own starts there
// (it inherits the thread's state: here no_new_privs and no capabilities,
// as a confined thread has), is still placed in its cgroup leaf at clone, and the
// thread lives until the child is Reaped.
func TestStartOnThread(t *testing.T) {
	m := New(Config{Cgroups: true, Name: "shoal-test"})
	t.Cleanup(m.Close)
	s := m.NewScope()
	tids := make(chan int, 1)
	ended := make(chan struct{})
	thread := func(body func()) error {
		go func() {
			defer close(ended)
			runtime.LockOSThread() // never unlocked: the thread ends here
			hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
			var none [2]unix.CapUserData
			if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
				t.Error(err)
			}
			if err := unix.Capset(&hdr, &none[0]); err != nil {
				t.Error(err)
			}
			tids <- unix.Gettid()
			body()
		}()
		return nil
	}
	cmd := exec.Command("/bin/sh", "-c", "grep -E 'CapEff|NoNewPrivs' /proc/self/status; cat /proc/self/cgroup")
	var out strings.Builder
	cmd.Stdout = &out
	p, err := s.StartOn(thread, cmd)
	if err != nil {
		t.Fatal(err)
	}
	tid := <-tids
	_ = cmd.Wait()
	if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(tid)); err != nil {
		t.Errorf("the thread ended before the child was Reaped: %v", err)
	}
	p.Reaped()
	<-ended
	if !strings.Contains(out.String(), "CapEff:\t0000000000000000") || !strings.Contains(out.String(), "NoNewPrivs:\t1") {
		t.Errorf("child's status %q: it did not start on the thread", out.String())
	}
	if m.cg != nil && m.cg.kind == cgV2 {
		if !strings.Contains(out.String(), "/s1/p") {
			t.Errorf("child's cgroup %q, not its leaf", out.String())
		}
		if canMigrate(m.cg.root) && !m.clonePlace.Load() {
			t.Errorf("placement at clone failed from the thread and was turned off")
		}
	}
}

// BenchmarkStartWait measures starting and reaping /bin/true through a
// scope, beside a plain exec.Cmd as the floor, with and without cgroups.
func BenchmarkStartWait(b *testing.B) {
	b.Run("floor-exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, cgroups := range []bool{false, true} {
		m := New(Config{Cgroups: cgroups, Name: "shoal-bench"})
		name := "plain"
		if m.cg != nil {
			name = "cgroup-" + m.cg.describe()[:2]
		} else if cgroups {
			m.Close()
			continue
		}
		s := m.NewScope()
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				p, err := s.Start(cmd)
				if err != nil {
					b.Fatal(err)
				}
				_ = cmd.Wait()
				p.Reaped()
			}
		})
		m.Close()
	}
}

// BenchmarkTable is one read of the process table through /proc: what
// the reaper paid on every SIGCHLD before it peeked with waitid first.
func BenchmarkTable(b *testing.B) {
	for b.Loop() {
		if _, err := table(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestScopeCloseEndsOrphanOfExitedSessionLeader: without a cgroup, a
// background child of a session leader that exits at once (before any
// poll saw the child) is re-parented here and is still ended when the
// scope closes (a PTY's shell that ran `sleep &` and exited).
func TestScopeCloseEndsOrphanOfExitedSessionLeader(t *testing.T) {
	m := New(Config{Subreaper: true, Name: "shoal-test"})
	t.Cleanup(m.Close)
	if !m.Features().Subreaper {
		t.Skip("subreaper unavailable")
	}
	s := m.NewScope()
	orphan := startOrphan(t, s, "sleep 100", &syscall.SysProcAttr{Setsid: true})
	s.Close()
	wantGone(t, orphan, "scope close")
}

// startOrphan starts a shell in s that runs bg in the background, writes
// its pid and exits; it waits for the shell, tells s it was reaped, and
// returns the orphan, still running (killed at cleanup).
func startOrphan(t *testing.T, s *Scope, bg string, attr *syscall.SysProcAttr) procStat {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("/bin/sh", "-c", bg+" & echo $! > "+pidFile)
	cmd.SysProcAttr = attr
	p, err := s.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	p.Reaped()
	orphan := waitPid(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(orphan.pid, syscall.SIGKILL) })
	if !alive(orphan) {
		t.Fatal("the orphan died on its own")
	}
	return orphan
}
