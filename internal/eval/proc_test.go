package eval

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// needProgs skips the test unless every program is on PATH.
func needProgs(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s not available: %v", n, err)
		}
	}
}

// procState is the state letter of /proc/<pid>/stat and the process group,
// ok false when the process is gone.
func procState(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces, so cut at the
	// last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 {
		return 0, 0, false
	}
	pgrp, _ = strconv.Atoi(f[2])
	return f[0][0], pgrp, true
}

// alive reports whether pid exists and is not a zombie (a killed orphan
// may linger as a zombie until its reaper collects it; it runs nothing).
func alive(pid int) bool {
	st, _, ok := procState(pid)
	return ok && st != 'Z'
}

// groupMembers lists the live processes in process group pgid.
func groupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, pg, ok := procState(pid); ok && pg == pgid && st != 'Z' {
			out = append(out, pid)
		}
	}
	return out
}

// TestCancelKillsProcessTree cancels an evaluation running
// `sh { sleep 30 & sleep 30; wait }` and checks that Eval returns promptly
// with a cancellation error and that every process of the tree — the
// shell, its background sleep and its foreground sleep, all in the group
// the host created — is gone within a second.
func TestCancelKillsProcessTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	needProgs(t, "sh", "sleep")
	in, dir := bfsSession(t, host.NewOS(host.AllowAll), nil)
	pidFile := filepath.Join(dir, "pids")
	src := "sh {\n  sleep 30 &\n  echo $$ $! > pids\n  sleep 30\n  wait\n}"

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		v   value.Value
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := in.Eval(ctx, src)
		done <- result{v, err}
	}()

	// Wait for the script to report its pids and for the foreground sleep
	// to start: three live members of the shell's process group.
	var shPid, bgPid int
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, err := os.ReadFile(pidFile); err == nil {
			f := strings.Fields(string(b))
			if len(f) == 2 {
				shPid, _ = strconv.Atoi(f[0])
				bgPid, _ = strconv.Atoi(f[1])
			}
		}
		if shPid > 0 && len(groupMembers(shPid)) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("script did not start its tree (sh %d, group %v)", shPid, groupMembers(shPid))
		}
		time.Sleep(10 * time.Millisecond)
	}
	members := groupMembers(shPid)
	t.Logf("tree: sh %d, background sleep %d, group %v", shPid, bgPid, members)

	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	cancel()
	var res result
	select {
	case res = <-done:
	case <-time.After(time.Second):
		t.Fatal("Eval did not return within 1s of cancellation")
	}
	returned := time.Since(start)
	if !errors.Is(ctx.Err(), context.Canceled) || bfsCode(res.err) != "cancelled" {
		t.Errorf("Eval = %v, %v; want a cancelled error", res.v, res.err)
	}
	for {
		left := groupMembers(shPid)
		for _, pid := range append(members, shPid, bgPid) {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			break
		}
		if time.Since(start) > time.Second {
			t.Fatalf("processes %v still alive 1s after cancellation", left)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("Eval returned %v after cancel; whole tree gone after %v", returned.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}

// heapBound is the documented bound on heap growth while the evaluator
// runs a command printing 200 MB: the host keeps at most its capture bound
// (host.DefaultMaxCapture, 16 MiB) of stdout in memory, growing the buffer
// by doubling (≈ 2× the bound allocated in all), and drops the rest;
// reading `.stdout` copies the kept prefix once more. Measured: ≈ 40 MiB
// in use, 48 MiB allocated in value position; < 1 MiB in statement
// position, where a non-final statement keeps only stmtCapture.
const heapBound = 64 << 20

// TestLargeOutputBoundedMemory runs a command printing 200 MB in value
// position and in statement position (stdout discarded) and checks that the
// evaluator's heap stays under heapBound, that no spill file is left, that
// `.out` of the truncated outcome refuses with output_truncated while
// `.stdout` holds the kept prefix, and that a redirect still receives
// every byte.
func TestLargeOutputBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 200 MB")
	}
	needProgs(t, "sh", "head")
	spill := t.TempDir()
	in, dir := bfsSession(t, host.NewOS(host.AllowAll, host.WithSpillDir(spill)), nil)
	const total = 200_000_000

	measure := func(name, src string) value.Value {
		t.Helper()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v, err := in.Eval(context.Background(), src)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		inuse := int64(after.HeapInuse) - int64(before.HeapInuse)
		alloc := int64(after.TotalAlloc - before.TotalAlloc)
		t.Logf("%s: HeapInuse +%.1f MiB, TotalAlloc +%.1f MiB (bound %d MiB)",
			name, float64(inuse)/(1<<20), float64(alloc)/(1<<20), heapBound>>20)
		if inuse > heapBound || alloc > heapBound {
			t.Errorf("%s: heap grew by %d bytes in use, %d allocated; want both < %d", name, inuse, alloc, heapBound)
		}
		return v
	}

	src := "sh { head -c " + strconv.Itoa(total) + " /dev/zero }"
	measure("statement position", src+"\n1")
	v := measure("value position", "let o = ("+src+")\n[o.ok, o.stdout.len()]")
	if got, want := value.Inline(v), "[true, "+strconv.Itoa(host.DefaultMaxCapture)+"]"; got != want {
		t.Errorf("truncated outcome: got %s, want %s", got, want)
	}
	_, err := in.Eval(context.Background(), "o.out")
	if bfsCode(err) != codeTruncated {
		t.Errorf("o.out on a truncated outcome = %v, want %s", err, codeTruncated)
	}
	if left, _ := os.ReadDir(spill); len(left) != 0 {
		t.Errorf("%d spill files left behind", len(left))
	}

	// A redirect receives the whole stream, not the captured prefix.
	const redirected = 50_000_000
	if _, err := in.Eval(context.Background(), "sh -c \"head -c "+strconv.Itoa(redirected)+" /dev/zero\" > big.txt"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "big.txt")); err != nil || fi.Size() != redirected {
		t.Errorf("redirect target: %v, %v; want %d bytes", fi, err, redirected)
	}

	// A small output is not truncated: .out works.
	if v, err := in.Eval(context.Background(), `(sh { echo hi }).out`); err != nil || value.Inline(v) != `"hi"` {
		t.Errorf("small output .out = %v, %v", v, err)
	}
}
