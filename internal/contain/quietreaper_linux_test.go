package contain

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestQuietReaper: with a cgroup v2 leaf per command the reaper does not
// listen for SIGCHLD (startReaper), and still an orphan that has exited
// when its command is reaped is reaped then, by the command's settle (for
// an exec, after its answer), and one that exits later is reaped by the
// reaper's tick. It runs in a process of its own (the test binary as
// "quiet-reaper"): a process listens for SIGCHLD for good once any of its
// Managers asked to, as the other tests' Managers without cgroups do.
func TestQuietReaper(t *testing.T) {
	out, err := exec.Command(os.Args[0], "quiet-reaper").CombinedOutput()
	got := strings.TrimSpace(string(out))
	if strings.HasPrefix(got, "skip:") {
		t.Skip(got)
	}
	if err != nil || got != "ok" {
		t.Fatalf("quiet-reaper: %v\n%s", err, got)
	}
}

// quietReaper is TestQuietReaper's process: it prints "ok", "skip: why",
// or what went wrong.
func quietReaper() int {
	m := New(Config{Subreaper: true, Cgroups: true, Name: "shoal-test"})
	defer m.Close()
	f := m.Features()
	if !f.Subreaper || !strings.HasPrefix(f.Cgroup, "v2:") {
		fmt.Printf("skip: no subreaper with cgroup v2 here (%+v)\n", f)
		return 0
	}
	if reaperListens.Load() {
		fmt.Println("the reaper listens for SIGCHLD with a cgroup v2 leaf per command")
		return 1
	}
	dir, err := os.MkdirTemp("", "quiet-reaper")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer os.RemoveAll(dir)
	s := m.NewScope()
	self := os.Getpid()

	// An orphan that has exited by its command's end is reaped by the
	// command's settle. (The tick may take it first, between the look
	// that finds it a zombie and the settle: then try again.)
	checked := false
	for try := 0; try < 20 && !checked; try++ {
		pidFile := filepath.Join(dir, "now"+strconv.Itoa(try))
		cmd := exec.Command("/bin/sh", "-c", "true & echo $! > "+pidFile)
		p, err := s.Start(cmd)
		if err != nil {
			fmt.Println("start:", err)
			return 1
		}
		if err := cmd.Wait(); err != nil {
			fmt.Println("wait:", err)
			return 1
		}
		settle := p.ReapedLater()
		pid, err := readPidFile(pidFile)
		if err != nil {
			fmt.Println("pid file:", err)
			return 1
		}
		var orphan procStat
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			st, err := readStat(pid)
			if err != nil {
				break // reaped already (by the tick)
			}
			if st.ppid == self && st.state == 'Z' {
				orphan = st
				break
			}
			if time.Now().After(deadline) {
				fmt.Printf("orphan %d never became a zombie child here: %+v\n", pid, st)
				return 1
			}
		}
		if orphan.pid == 0 {
			settle()
			continue
		}
		settle()
		if st, err := readStat(orphan.pid); err == nil && st.start == orphan.start {
			fmt.Printf("orphan %d still a zombie (%c) after its command settled\n", orphan.pid, st.state)
			return 1
		}
		checked = true
	}
	if !checked {
		fmt.Println("the tick reaped every orphan before its command settled, 20 times")
		return 1
	}

	// One that exits after its command ended is reaped by the tick.
	pidFile := filepath.Join(dir, "later")
	cmd := exec.Command("/bin/sh", "-c", "sleep 0.2 & echo $! > "+pidFile)
	p, err := s.Start(cmd)
	if err != nil {
		fmt.Println("start:", err)
		return 1
	}
	if err := cmd.Wait(); err != nil {
		fmt.Println("wait:", err)
		return 1
	}
	p.Reaped()
	pid, err := readPidFile(pidFile)
	if err != nil {
		fmt.Println("pid file:", err)
		return 1
	}
	first, err := readStat(pid)
	if err != nil {
		fmt.Println("the later orphan is gone before it slept:", err)
		return 1
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if st, err := readStat(pid); err != nil || st.start != first.start {
			break
		}
		if time.Now().After(deadline) {
			fmt.Printf("orphan %d not reaped 20 s after it was started\n", pid)
			return 1
		}
	}
	fmt.Println("ok")
	return 0
}
