package host

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func run(t *testing.T, h Host, ctx context.Context, s *Spawn) *Result {
	t.Helper()
	res, err := h.Run(ctx, s)
	if err != nil {
		t.Fatalf("Run(%q): %v", s.Argv, err)
	}
	return res
}

func TestRunStatusAndSignals(t *testing.T) {
	sh := prog(t, "sh")
	cases := []struct {
		script string
		status int // -1: killed
		signal string
	}{
		{"exit 0", 0, ""},
		{"exit 3", 3, ""},
		{"kill -SEGV $$", -1, "SIGSEGV"},
		{"kill -KILL $$", -1, "SIGKILL"},
		{"kill -TERM $$", -1, "SIGTERM"},
		{"kill -USR1 $$", -1, "SIGUSR1"},
	}
	h := NewOS(AllowAll)
	for _, tc := range cases {
		res := run(t, h, context.Background(), &Spawn{Argv: []string{sh, "-c", tc.script}})
		switch {
		case tc.status >= 0 && (res.Status == nil || *res.Status != tc.status || res.Signal != ""):
			t.Errorf("%q: status %v signal %q, want exit %d", tc.script, res.Status, res.Signal, tc.status)
		case tc.status < 0 && (res.Status != nil || res.Signal != tc.signal):
			t.Errorf("%q: status %v signal %q, want %s", tc.script, res.Status, res.Signal, tc.signal)
		}
		if res.Pid <= 0 || res.Dur <= 0 {
			t.Errorf("%q: pid %d dur %v", tc.script, res.Pid, res.Dur)
		}
	}
}

func TestSignalName(t *testing.T) {
	if got := signalName(syscall.SIGINT); got != "SIGINT" {
		t.Errorf("signalName(SIGINT) = %q", got)
	}
	if got := signalName(syscall.Signal(77)); got != "SIG77" {
		t.Errorf("signalName(77) = %q", got)
	}
}

func TestRunIO(t *testing.T) {
	sh := prog(t, "sh")
	dir := t.TempDir()
	var streamOut, streamErr bytes.Buffer
	res := run(t, NewOS(AllowAll), context.Background(), &Spawn{
		Argv:      []string{sh, "-c", `printf '%s|%s|' "$GREETING" "$(pwd)"; cat; echo oops >&2; env | grep -c . >&2`, "argv0"},
		Dir:       dir,
		Env:       []string{"GREETING=hi there"},
		Stdin:     strings.NewReader("from stdin"),
		StreamOut: &streamOut,
		StreamErr: &streamErr,
	})
	wantOut := "hi there|" + dir + "|from stdin"
	if string(res.Stdout) != wantOut {
		t.Errorf("stdout = %q, want %q", res.Stdout, wantOut)
	}
	// The environment is exactly what was given (sh adds PWD and maybe
	// a couple of its own, never the test process's variables).
	lines := strings.Split(strings.TrimSpace(string(res.Stderr)), "\n")
	if len(lines) != 2 || lines[0] != "oops" {
		t.Fatalf("stderr = %q", res.Stderr)
	}
	if n, _ := strconv.Atoi(lines[1]); n > 4 {
		t.Errorf("child saw %d env vars; the host environment leaked", n)
	}
	if streamOut.String() != wantOut || !strings.HasPrefix(streamErr.String(), "oops\n") {
		t.Errorf("streams = %q / %q", streamOut.String(), streamErr.String())
	}
	if res.Truncated || res.SpillPath != "" {
		t.Errorf("truncated %v spill %q for tiny output", res.Truncated, res.SpillPath)
	}
}

func TestRunEmptyStdin(t *testing.T) {
	cat := prog(t, "cat")
	done := make(chan *Result, 1)
	go func() {
		res, _ := NewOS(AllowAll).Run(context.Background(), &Spawn{Argv: []string{cat}})
		done <- res
	}()
	select {
	case res := <-done:
		if res == nil || len(res.Stdout) != 0 || res.Status == nil || *res.Status != 0 {
			t.Errorf("cat with nil stdin = %+v", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cat with nil Stdin did not see EOF")
	}
}

func TestRunErrors(t *testing.T) {
	h := NewOS(AllowAll)
	ctx := context.Background()
	if _, err := h.Run(ctx, &Spawn{}); err == nil {
		t.Error("empty argv accepted")
	}
	if _, err := h.Run(ctx, nil); err == nil {
		t.Error("nil spawn accepted")
	}
	if _, err := h.Run(ctx, &Spawn{Argv: []string{"true"}}); !errors.Is(err, ErrNotAbsolute) {
		t.Errorf("relative argv0: %v", err)
	}
	if _, err := h.Run(ctx, &Spawn{Argv: []string{"/nonexistent/prog"}}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing program: %v", err)
	}
	_, err := h.Run(ctx, &Spawn{Argv: []string{prog(t, "cat")}, Stdin: failingReader{}})
	if err == nil || !strings.Contains(err.Error(), "unreadable") {
		t.Errorf("failing stdin reader: %v", err)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("unreadable") }

// TestRunCaptureBound prints 200 MB and checks memory stays bounded, the
// preview is kept, and the spill file holds everything up to its limit.
func TestRunCaptureBound(t *testing.T) {
	head := prog(t, "head")
	const total = 200_000_000
	spill := t.TempDir()
	h := NewOS(AllowAll, WithSpillDir(spill), WithSpillLimit(64<<20))

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := run(t, h, context.Background(), &Spawn{Argv: []string{head, "-c", strconv.Itoa(total), "/dev/zero"}})
	runtime.GC()
	runtime.ReadMemStats(&after)

	growth := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("200 MB of output: heap growth %.1f MiB (retained Result %d MiB), peak heap sys %.1f MiB",
		float64(growth)/(1<<20), len(res.Stdout)>>20, float64(after.HeapSys)/(1<<20))
	if growth > 64<<20 {
		t.Errorf("heap grew by %d bytes, want < 64 MiB", growth)
	}
	if int64(len(res.Stdout)) != DefaultMaxCapture || !res.Truncated {
		t.Errorf("stdout %d bytes truncated=%v, want %d and true", len(res.Stdout), res.Truncated, DefaultMaxCapture)
	}
	if res.Status == nil || *res.Status != 0 {
		t.Errorf("head status %v signal %q", res.Status, res.Signal)
	}
	fi, err := os.Stat(res.SpillPath)
	if err != nil || filepath.Dir(res.SpillPath) != spill || fi.Size() != 64<<20 {
		t.Errorf("spill %q: %v, %v; want %d bytes in %s", res.SpillPath, fi, err, 64<<20, spill)
	}
}

func TestRunSpillContent(t *testing.T) {
	sh := prog(t, "sh")
	h := NewOS(AllowAll, WithSpillDir(t.TempDir()))
	// 5000 numbered lines to stdout and stderr, a 1 KiB bound.
	res := run(t, h, context.Background(), &Spawn{
		Argv:       []string{sh, "-c", `i=0; while [ $i -lt 5000 ]; do echo $i; echo $i >&2; i=$((i+1)); done`},
		MaxCapture: 1024,
	})
	var want bytes.Buffer
	for i := range 5000 {
		want.WriteString(strconv.Itoa(i) + "\n")
	}
	if !res.Truncated || !bytes.Equal(res.Stdout, want.Bytes()[:1024]) || !bytes.Equal(res.Stderr, want.Bytes()[:1024]) {
		t.Errorf("preview: truncated=%v stdout %d bytes, stderr %d bytes", res.Truncated, len(res.Stdout), len(res.Stderr))
	}
	got, err := os.ReadFile(res.SpillPath)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("spill file: %d bytes, %v; want the full %d bytes", len(got), err, want.Len())
	}
	os.Remove(res.SpillPath)

	// With spilling disabled there is no file, only the preview.
	res = run(t, NewOS(AllowAll, WithSpillLimit(0)), context.Background(), &Spawn{
		Argv: []string{sh, "-c", `echo 0123456789`}, MaxCapture: 4})
	if string(res.Stdout) != "0123" || !res.Truncated || res.SpillPath != "" {
		t.Errorf("no-spill: %q truncated=%v spill=%q", res.Stdout, res.Truncated, res.SpillPath)
	}

	// Spawn.NoSpill does the same for one spawn on a spilling host.
	spillDir := t.TempDir()
	res = run(t, NewOS(AllowAll, WithSpillDir(spillDir)), context.Background(), &Spawn{
		Argv: []string{sh, "-c", `echo 0123456789`}, MaxCapture: 4, NoSpill: true})
	if string(res.Stdout) != "0123" || !res.Truncated || res.SpillPath != "" {
		t.Errorf("Spawn.NoSpill: %q truncated=%v spill=%q", res.Stdout, res.Truncated, res.SpillPath)
	}
	if left, _ := os.ReadDir(spillDir); len(left) != 0 {
		t.Errorf("Spawn.NoSpill left %d files in the spill dir", len(left))
	}
}

// procGone reports whether pid no longer runs (absent, or a zombie left for
// a reaper that is not us).
func procGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// groupMembers lists live processes whose process group is pgid.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state ppid pgrp ...
		if len(f) > 2 && f[0] != "Z" && f[0] != "X" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

// TestRunCancelKillsGroup cancels a tree of processes and checks every one
// is gone within a second, both when they die on SIGTERM and when they
// ignore it and need the SIGKILL escalation.
func TestRunCancelKillsGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	sh := prog(t, "sh")
	for name, prefix := range map[string]string{"term": "", "ignores-term": `trap "" TERM; `} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			pids := filepath.Join(dir, "pids")
			script := prefix + `sleep 30 & echo $! >> pids; sleep 30 & echo $! >> pids; echo $$ >> pids; wait`
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type out struct {
				res *Result
				err error
			}
			done := make(chan out, 1)
			go func() {
				res, err := NewOS(AllowAll).Run(ctx, &Spawn{Argv: []string{sh, "-c", script}, Dir: dir})
				done <- out{res, err}
			}()
			var tree []int
			for deadline := time.Now().Add(5 * time.Second); len(tree) < 3; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("tree did not start; pids so far %v", tree)
				}
				data, _ := os.ReadFile(pids)
				tree = tree[:0]
				for _, f := range strings.Fields(string(data)) {
					if pid, err := strconv.Atoi(f); err == nil {
						tree = append(tree, pid)
					}
				}
			}
			pgid := tree[2]
			if m := groupMembers(pgid); len(m) < 3 {
				t.Fatalf("group %d has members %v, want the 3 of %v", pgid, m, tree)
			}
			start := time.Now()
			cancel()
			var o out
			select {
			case o = <-done:
			case <-time.After(3 * time.Second):
				t.Fatal("Run did not return within 3s of cancel")
			}
			if o.err != nil {
				t.Fatalf("Run: %v", o.err)
			}
			for deadline := start.Add(time.Second); ; time.Sleep(5 * time.Millisecond) {
				alive := groupMembers(pgid)
				for _, pid := range tree {
					if !procGone(pid) && !contains(alive, pid) {
						alive = append(alive, pid)
					}
				}
				if len(alive) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("still alive 1s after cancel: %v", alive)
				}
			}
			t.Logf("tree %v gone %v after cancel; Run returned %v after; signal %s",
				tree, time.Since(start).Round(time.Millisecond), o.res.Dur.Round(time.Millisecond), o.res.Signal)
			if o.res.Status != nil || o.res.Signal == "" || o.res.Pid != pgid {
				t.Errorf("result status %v signal %q pid %d, want signal death of %d", o.res.Status, o.res.Signal, o.res.Pid, pgid)
			}
		})
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestRunOrphanHoldsPipe: the child exits at once but leaves a grandchild
// holding stdout; Run must return after the wait delay, not after 30s.
func TestRunOrphanHoldsPipe(t *testing.T) {
	sh := prog(t, "sh")
	start := time.Now()
	res := run(t, NewOS(AllowAll), context.Background(), &Spawn{
		Argv: []string{sh, "-c", `echo before; sleep 30 & echo $! >&2; exit 0`},
	})
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("Run took %v with an orphan holding the pipe", elapsed)
	}
	if string(res.Stdout) != "before\n" || res.Status == nil || *res.Status != 0 {
		t.Errorf("stdout %q status %v", res.Stdout, res.Status)
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(res.Stderr))); err == nil {
		syscall.Kill(pid, syscall.SIGKILL) // tidy up the test's own orphan
	}
}

func TestRunAlreadyCancelled(t *testing.T) {
	sh := prog(t, "sh")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewOS(AllowAll).Run(ctx, &Spawn{Argv: []string{sh, "-c", "touch marker"}, Dir: dir})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a process ran on a cancelled context")
	}
}

// brokenWriter fails every write, like a closed terminal.
type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken") }

func TestRunBrokenStreamKeepsCapturing(t *testing.T) {
	sh := prog(t, "sh")
	res := run(t, NewOS(AllowAll), context.Background(), &Spawn{
		Argv:      []string{sh, "-c", "echo one; echo two"},
		StreamOut: brokenWriter{},
	})
	if string(res.Stdout) != "one\ntwo\n" || res.Signal != "" {
		t.Errorf("stdout %q signal %q", res.Stdout, res.Signal)
	}
}

// TestRunTerminalRefusals: RunTerminal asks the gate first, and refuses a
// descriptor that is not a terminal. (Running in the foreground of a real
// terminal is exercised end to end by cmd/shoal's TestREPLOnATerminal.)
func TestRunTerminalRefusals(t *testing.T) {
	tr := prog(t, "true")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := NewOS(DenyAll).RunTerminal(context.Background(), &Spawn{Argv: []string{tr}}, int(r.Fd())); !errors.Is(err, ErrDenied) {
		t.Errorf("deny-all: %v", err)
	}
	if _, err := NewOS(AllowAll).RunTerminal(context.Background(), &Spawn{Argv: []string{tr}}, int(r.Fd())); err == nil || !strings.Contains(err.Error(), "not a terminal") {
		t.Errorf("a pipe: %v", err)
	}
	if _, err := NewOS(AllowAll).RunTerminal(context.Background(), &Spawn{Argv: []string{"true"}}, int(r.Fd())); !errors.Is(err, ErrNotAbsolute) {
		t.Errorf("relative program: %v", err)
	}
}
