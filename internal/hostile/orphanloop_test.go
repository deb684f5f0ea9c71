//go:build linux

package hostile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// orphanLoopRun is how long TestOrphanLoop's command makes orphans: ten
// times the bound on an orphan's reaping when the kernel does not listen
// for SIGCHLD (its reaper's one-second tick; docs/kernel.md, Processes).
const orphanLoopRun = 10 * time.Second

// TestOrphanLoop: a command that makes orphans in a loop (each round a
// shell starts `true` in the background and exits at once, so `true` is
// re-parented to the kernel, its subreaper, and exits there) for ten times
// the reaper's bound leaves the kernel up and another client served all
// along, and no zombie child of the kernel once it has ended. With the
// kernel's cgroups (v2 on a machine that has it: the reaper then does not
// listen for SIGCHLD and reaps at a command's end, on its tick and, once
// it has found orphans, every 20 ms) and without them (it listens).
func TestOrphanLoop(t *testing.T) {
	run := orphanLoopRun
	if testing.Short() {
		run = 2 * time.Second
	}
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"cgroups", nil},
		{"no-cgroups", []string{"--no-cgroups"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := Start(t, Options{Flags: tc.flags})
			owner := k.Owner(t)
			ctx := Ctx(t)
			if info, err := owner.KernelInfo(ctx); err == nil && info.Containment != nil {
				t.Logf("containment: %+v", *info.Containment)
			}
			stop := filepath.Join(k.Dir, "stop")
			made := filepath.Join(k.Dir, "made")
			script := `n=0; while [ ! -e ` + stop + ` ]; do sh -c "true &"; n=$((n+1)); done; echo $n > ` + made
			res, err := owner.Exec(ctx, client.ExecParams{Src: `^/bin/sh -c '` + script + `'`, Async: true})
			if err != nil {
				t.Fatal(err)
			}
			pulse := k.Pulse(t) // another client, served while the loop runs
			most := 0
			for end := time.Now().Add(run); time.Now().Before(end); {
				most = max(most, len(zombieChildren(t, k.Pid)))
				k.Alive(t)
				time.Sleep(50 * time.Millisecond)
			}
			if err := os.WriteFile(stop, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			rec, err := owner.TaskAwait(ctx, res.Task, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if rec.State != proto.TaskCompleted {
				t.Fatalf("the loop's task: %+v", rec)
			}
			beats := pulse.Stop(t)
			b, err := os.ReadFile(made)
			if err != nil {
				t.Fatal(err)
			}
			n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			t.Logf("%d orphans in %v; at most %d zombie children of the kernel seen; %d beats answered beside, slowest %v",
				n, run, most, len(beats), slowest(beats))
			if n == 0 {
				t.Fatal("the loop made no orphan")
			}
			// Every orphan is reaped once the command has ended (within
			// the reaper's bound; the wait here is a hung reaper's).
			var left []int
			for deadline := time.Now().Add(30 * time.Second); ; {
				if left = zombieChildren(t, k.Pid); len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d zombie children of the kernel left after the loop: %v", len(left), left[:min(len(left), 10)])
				}
				time.Sleep(50 * time.Millisecond)
			}
			if _, err := owner.Exec(ctx, client.ExecParams{Src: "^/bin/true"}); err != nil {
				t.Fatalf("a command after the loop: %v", err)
			}
			k.Alive(t)
		})
	}
}

// zombieChildren lists the exited, unreaped children of pid.
func zombieChildren(t testing.TB, pid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		q, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 >= len(s) || s[i+2] != 'Z' {
			continue
		}
		f := strings.Fields(s[i+2:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, q)
		}
	}
	return out
}

func slowest(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}
