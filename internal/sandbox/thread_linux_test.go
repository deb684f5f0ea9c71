//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The main goroutine keeps the main thread, so that TestMain runs there
// and onTheMainThread can try Run's path from it.
func init() { runtime.LockOSThread() }

// threadState is what /proc says of one thread's confinement.
type threadState struct {
	NoNewPrivs, Seccomp, CapEff, CapBnd string
}

func (s threadState) String() string {
	return fmt.Sprintf("NoNewPrivs:%s Seccomp:%s CapEff:%s CapBnd:%s", s.NoNewPrivs, s.Seccomp, s.CapEff, s.CapBnd)
}

// readThreadState reads /proc/self/task/<tid>/status.
func readThreadState(tid int) (threadState, error) {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return threadState{}, err
	}
	var s threadState
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "NoNewPrivs":
			s.NoNewPrivs = v
		case "Seccomp":
			s.Seccomp = v
		case "CapEff":
			s.CapEff = v
		case "CapBnd":
			s.CapBnd = v
		}
	}
	return s, nil
}

// liveThreads lists this process's threads.
func liveThreads() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	var tids []int
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// confinedGone waits until none of tids is a live thread of this process
// (a confined thread ends just after its goroutine returns, so this is a
// wait for the runtime, bounded generously, not a timing assertion).
func confinedGone(t *testing.T, tids []int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		live, err := liveThreads()
		if err != nil {
			t.Fatal(err)
		}
		var left []int
		for _, tid := range tids {
			if slices.Contains(live, tid) {
				left = append(left, tid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("confined threads %v still alive a minute after their goroutines returned", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// allThreadsAre checks every live thread of this process is in state
// want.
func allThreadsAre(t *testing.T, want threadState) {
	t.Helper()
	live, err := liveThreads()
	if err != nil {
		t.Fatal(err)
	}
	for _, tid := range live {
		st, err := readThreadState(tid)
		if errors.Is(err, os.ErrNotExist) {
			continue // ended since the listing
		}
		if err != nil {
			t.Fatal(err)
		}
		if st != want {
			t.Errorf("thread %d: %v, want %v as the process started", tid, st, want)
		}
	}
}

// TestRunConfinesOnlyItsThread: each Run's function runs on a thread of
// its own, confined (no_new_privs, no capabilities, the socket filter,
// Landlock: it cannot read a file the rules do not grant, which the test
// reads), and only that thread: once every Run has returned, their
// threads are gone and every live thread of the process is as it was.
// Many Runs, several at a time.
func TestRunConfinesOnlyItsThread(t *testing.T) {
	needFS(t)
	pid := os.Getpid()
	clean, err := readThreadState(pid)
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := Rules{RestrictFS: true, ReadOnly: systemRoots, RestrictNet: Probe().Net}
	c, err := Prepare(r)
	if err != nil || c == nil {
		t.Fatalf("Prepare: %v, %v", c, err)
	}
	defer c.Close()
	const runs, parallel = 200, 8
	var (
		mu   sync.Mutex
		tids []int
		wg   sync.WaitGroup
	)
	sem := make(chan struct{}, parallel)
	for i := range runs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ready, checked := make(chan int), make(chan struct{})
			var readErr, sigErr error
			done := make(chan error, 1)
			go func() {
				done <- c.Run(func() {
					_, readErr = os.ReadFile(secret)
					sigErr = unix.Tgkill(pid, pid, 0) // the runtime signals its own threads (preemption)
					ready <- unix.Gettid()
					<-checked
				})
			}()
			tid := <-ready
			st, err := readThreadState(tid)
			close(checked)
			if err := <-done; err != nil {
				t.Errorf("run %d: %v", i, err)
				return
			}
			mu.Lock()
			tids = append(tids, tid)
			mu.Unlock()
			want := threadState{NoNewPrivs: "1", Seccomp: "0", CapEff: "0000000000000000", CapBnd: "0000000000000000"}
			if r.RestrictNet {
				want.Seccomp = "2"
			}
			if err != nil || st != want {
				t.Errorf("run %d: thread %d: %v %v, want %v", i, tid, st, err, want)
			}
			if tid == pid {
				t.Errorf("run %d: ran on the main thread", i)
			}
			if !errors.Is(readErr, os.ErrPermission) {
				t.Errorf("run %d: reading an ungranted file on the confined thread: %v, want a refusal", i, readErr)
			}
			if sigErr != nil {
				t.Errorf("run %d: signalling the process's own thread from the confined one: %v", i, sigErr)
			}
		}()
		// The process itself still reads the file.
		if _, err := os.ReadFile(secret); err != nil {
			t.Fatalf("unconfined read during run %d: %v", i, err)
		}
	}
	wg.Wait()
	if len(slices.Compact(slices.Sorted(slices.Values(tids)))) != len(tids) {
		t.Errorf("a thread ran two Runs: %v", tids)
	}
	confinedGone(t, tids)
	allThreadsAre(t, clean)
}

// mainThreadFindings is what onTheMainThread found, run from TestMain on
// the main thread.
var mainThreadFindings string

// onTheMainThread calls Run's goroutine body directly on the main thread
// (the runtime never lets that thread exit, so it must never be
// confined) and reports anything wrong: the function must run on another
// thread, and the main thread must stay as it was.
func onTheMainThread() string {
	if Probe().ABI < abiFSPartial {
		return ""
	}
	pid := os.Getpid()
	if unix.Gettid() != pid {
		return "TestMain is not on the main thread"
	}
	before, err := readThreadState(pid)
	if err != nil {
		return err.Error()
	}
	c, err := Prepare(Rules{RestrictFS: true, ReadOnly: systemRoots})
	if err != nil || c == nil {
		return fmt.Sprintf("Prepare: %v, %v", c, err)
	}
	defer c.Close()
	res := make(chan error, 1)
	var ran int
	c.thread(func() { ran = unix.Gettid() }, res, nil)
	if err := <-res; err != nil {
		return err.Error()
	}
	var bad []string
	if ran == pid || ran == 0 {
		bad = append(bad, fmt.Sprintf("the function ran on thread %d (the main thread is %d)", ran, pid))
	}
	if unix.Gettid() != pid {
		bad = append(bad, "the main goroutine lost the main thread")
	}
	if after, err := readThreadState(pid); err != nil || after != before {
		bad = append(bad, fmt.Sprintf("main thread %v (%v), was %v", after, err, before))
	}
	return strings.Join(bad, "; ")
}

// TestRunNeverConfinesTheMainThread reports what TestMain found.
func TestRunNeverConfinesTheMainThread(t *testing.T) {
	needFS(t)
	if mainThreadFindings != "" {
		t.Error(mainThreadFindings)
	}
}
