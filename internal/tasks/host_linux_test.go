//go:build linux

package tasks

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
)

// treeScript runs a process tree: a background sleep, a nested shell with
// its own background sleep, and a foreground sleep; it writes the pids it
// knows to the file named by $1.
const treeScript = `echo $$ > "$1"
sleep 30 & echo $! >> "$1"
sh -c 'sleep 30 & echo $! >> "$1"; wait' inner "$1" & echo $! >> "$1"
sleep 30
wait`

// TestCancelKillsProcessTree runs a real shell tree through the OS host
// as a task and shows Cancel kills every process of it within a second.
func TestCancelKillsProcessTree(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	noLeaks(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	h := host.NewOS(host.AllowAll)
	r := New()
	task := mustStart(t, r, alice, func(ctx context.Context) (any, error) {
		return h.Run(ctx, &host.Spawn{
			Argv: []string{sh, "-c", treeScript, "tree", pidFile},
			Env:  []string{"PATH=" + os.Getenv("PATH")},
			Dir:  t.TempDir(),
		})
	})

	// Wait for the script's four pids and for the foreground sleep, found
	// as a fifth member of the shell's process group.
	var pids []int
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids = readPids(pidFile)
		if len(pids) == 4 && len(groupMembers(pids[0])) >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tree did not start: pids %v", pids)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, p := range groupMembers(pids[0]) {
		if !slices.Contains(pids, p) {
			pids = append(pids, p)
		}
	}
	if len(pids) < 5 {
		t.Fatalf("expected at least 5 processes, got %v", pids)
	}
	for _, p := range pids {
		if !alive(p) {
			t.Fatalf("pid %d not alive before cancel", p)
		}
	}

	start := time.Now()
	if _, err := r.Cancel(alice, task.ID()); err != nil {
		t.Fatal(err)
	}
	rec, err := r.Await(context.Background(), alice, task.ID(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != Cancelled {
		t.Fatalf("state %s after 1s (timed out %v)", rec.State, rec.TimedOut)
	}
	for _, p := range pids {
		for alive(p) {
			if time.Since(start) > time.Second {
				t.Fatalf("pid %d still alive %v after cancel", p, time.Since(start))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	v, ok, err := task.Result()
	res, _ := v.(*host.Result)
	if !ok || err != nil || res == nil || res.Signal == "" {
		t.Errorf("Result = %#v, %v, %v; want a signal death", v, ok, err)
	}
	t.Logf("%d processes gone %v after cancel", len(pids), time.Since(start))
}

func readPids(path string) []int {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// procStat returns the state letter and process group of pid.
func procStat(pid int) (state byte, pgrp int, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(data[i+1:])) // state ppid pgrp ...
	if len(f) < 3 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}

// alive: the process exists and is not a zombie awaiting its reaper.
func alive(pid int) bool {
	st, _, ok := procStat(pid)
	return ok && st != 'Z' && st != 'X'
}

func groupMembers(pgid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, pg, ok := procStat(pid); ok && pg == pgid && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}
