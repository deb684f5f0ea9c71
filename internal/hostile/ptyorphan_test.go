//go:build linux

package hostile

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// TestPTYOrphanEndsWithSession: a PTY's shell starts a background
// program that ignores SIGHUP and SIGTERM and exits at once, so the
// program is re-parented to the kernel before any walk saw it; when the
// session then closes as idle, the program is ended too. It runs with
// the kernel's cgroups and without them (--no-cgroups), where only the
// program's session (the PTY's) ties it to the PTY.
func TestPTYOrphanEndsWithSession(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"cgroups", nil},
		{"no-cgroups", []string{"--no-cgroups"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const idle = 200 * time.Millisecond
			k := Start(t, Options{Flags: append([]string{"--session-idle", idle.String()}, tc.flags...)})
			ctx := Ctx(t)
			c := k.Attach(t, "orphans", "")
			if tc.name == "no-cgroups" {
				info, err := c.KernelInfo(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if info.Containment == nil || info.Containment.Cgroup != "none" {
					t.Fatalf("--no-cgroups: containment = %+v", info.Containment)
				}
			}
			sh := "sh"
			pt, err := c.PTYOpen(ctx, proto.PTYOpenParams{Cmd: &sh})
			if err != nil {
				t.Fatal(err)
			}
			pidFile := filepath.Join(k.Dir, "bgpid")
			input, _ := json.Marshal("(trap '' HUP TERM; exec sleep 1000) & echo $! > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; exit\r")
			if _, err := c.PTYSend(ctx, pt.PtyID, json.RawMessage(input)); err != nil {
				t.Fatal(err)
			}
			var bg int
			for deadline := time.Now().Add(20 * time.Second); bg == 0; {
				if b, err := os.ReadFile(pidFile); err == nil {
					bg, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				}
				if time.Now().After(deadline) {
					t.Fatal("the background program's pid never came")
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Cleanup(func() { _ = syscall.Kill(bg, syscall.SIGKILL) })
			for deadline := time.Now().Add(20 * time.Second); processRuns(pt.Pid); {
				if time.Now().After(deadline) {
					t.Fatal("the PTY's shell did not exit")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if !processRuns(bg) {
				t.Fatal("the background program ended with its shell; nothing to check")
			}
			closed := time.Now()
			defer func() { t.Logf("ended %v after close", time.Since(closed)) }()
			c.Close()
			// The session closes once idle; its background program must end.
			for deadline := time.Now().Add(30 * time.Second); processRuns(bg); {
				if time.Now().After(deadline) {
					t.Fatalf("pid %d outlived its PTY's session", bg)
				}
				time.Sleep(50 * time.Millisecond)
			}
			// It was the session's close that ended it: the session is new.
			cl := k.Client(t)
			actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if a, err := cl.Attach(actx, client.AttachParams{Session: "orphans"}); err != nil || !a.Created {
				t.Errorf("attach after the program ended = %+v, %v; want a new session", a, err)
			}
			k.Alive(t)
		})
	}
}

// processRuns reports whether pid names a process that is not a zombie.
func processRuns(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !zombie(b)
}
