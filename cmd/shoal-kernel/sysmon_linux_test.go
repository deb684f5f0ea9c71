//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/contain"
	"github.com/shoalgo/shoal/internal/procname"
	"github.com/shoalgo/shoal/internal/sysmon"
)

// startWithEnv starts the kernel binary with exactly env (and --debuggable,
// so that its /proc/<pid>/environ is readable without privilege) and
// returns its socket and pid once it is ready.
func startWithEnv(t *testing.T, env []string) (sock string, pid int) {
	t.Helper()
	dir := shortDir(t)
	p := startProcEnv(t, dir, append([]string{"HOME=" + dir, "PATH=/usr/bin:/bin", "XDG_RUNTIME_DIR=" + dir, "XDG_STATE_HOME=" + dir, "SHOAL_TOKEN_STORE="}, env...),
		"--socket", filepath.Join(dir, "k.sock"), "--state-dir", filepath.Join(dir, "state"), "--debuggable")
	return p.readyLine(t), p.cmd.Process.Pid
}

// environOf is a process's environment as it was exec'ed.
func environOf(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// childEnv is the environment a command run by the kernel's session sees.
func childEnv(t *testing.T, sock string) []string {
	t.Helper()
	line := execThrough(t, sock, "^/usr/bin/env")
	var ans struct {
		Result struct {
			Value struct {
				Out struct {
					V string `json:"v"`
				} `json:"out"`
			} `json:"value"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &ans); err != nil || ans.Error != nil || ans.Result.Value.Out.V == "" {
		t.Fatalf("exec of env through the kernel: %v: %s", err, line)
	}
	return strings.Split(strings.TrimSuffix(ans.Result.Value.Out.V, "\n"), "\n")
}

func godebugOf(env []string) []string {
	var out []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "GODEBUG=") || strings.HasPrefix(kv, sysmon.MarkerEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// TestKernelKeepsMonitorAwake: the kernel runs (in the process it was
// started as) with schedtrace set, and what it starts sees GODEBUG as the
// kernel was given it, and no marker.
func TestKernelKeepsMonitorAwake(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      []string
		kernel   []string // GODEBUG and marker of the running kernel
		commands []string // GODEBUG and marker a command sees
	}{
		{"no GODEBUG", nil,
			[]string{"GODEBUG=schedtrace=2147483647", sysmon.MarkerEnv + "=unset"}, nil},
		{"GODEBUG given", []string{"GODEBUG=gctrace=0"},
			[]string{"GODEBUG=gctrace=0,schedtrace=2147483647", sysmon.MarkerEnv + "=set:gctrace=0"},
			[]string{"GODEBUG=gctrace=0"}},
		{"schedtrace chosen: not re-executed", []string{"GODEBUG=schedtrace=0"},
			[]string{"GODEBUG=schedtrace=0"}, []string{"GODEBUG=schedtrace=0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sock, pid := startWithEnv(t, tc.env)
			if got := godebugOf(environOf(t, pid)); !slices.Equal(got, tc.kernel) {
				t.Errorf("the kernel (pid %d) runs with %q, want %q", pid, got, tc.kernel)
			}
			env := childEnv(t, sock)
			if got := godebugOf(env); !slices.Equal(got, tc.commands) {
				t.Errorf("a command sees %q, want %q", got, tc.commands)
			}
			for _, kv := range env {
				if strings.HasPrefix(kv, sysmon.NameEnv+"=") {
					t.Errorf("a command sees %q", kv)
				}
			}
			// ps, top and pgrep show the kernel, and each of its
			// threads, by its name, not by the file it re-ran.
			tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/comm")
			if err != nil || len(tasks) == 0 {
				t.Fatalf("the kernel's threads: %v %v", tasks, err)
			}
			for _, comm := range tasks {
				if b, err := os.ReadFile(comm); err == nil && string(b) != "shoal-kernel\n" {
					t.Errorf("%s = %q, want %q", comm, b, "shoal-kernel\n")
				}
			}
		})
	}
}

// TestSupervisorNamed: the kernel's supervisor, run again from
// /proc/self/exe, shows in ps, top and pgrep by a name of its own (not
// "exe", and not the kernel's, which pkill shoal-kernel would match).
func TestSupervisorNamed(t *testing.T) {
	_, pid := startWithEnv(t, nil)
	want := contain.SupervisorName[:procname.MaxLen] + "\n"
	var found []string
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !slices.Contains(strings.Split(string(cmdline), "\x00"), contain.SupervisorCommand) ||
			!slices.Contains(strings.Split(string(cmdline), "\x00"), strconv.Itoa(pid)) {
			continue
		}
		comms, _ := filepath.Glob("/proc/" + strconv.Itoa(child) + "/task/*/comm")
		for _, comm := range comms {
			if b, err := os.ReadFile(comm); err == nil {
				found = append(found, comm)
				if string(b) != want {
					t.Errorf("%s = %q, want %q", comm, b, want)
				}
			}
		}
	}
	if len(found) == 0 {
		t.Fatalf("no supervisor of kernel %d found in /proc", pid)
	}
}
