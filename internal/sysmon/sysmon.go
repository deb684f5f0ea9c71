// Package sysmon keeps the Go runtime's monitor thread out of its deep
// sleep in a long-lived server, by re-executing the program once at start
// with GODEBUG's schedtrace set.
//
// The runtime's monitor thread (sysmon) sleeps on a note while every P is
// idle, and the first system call made after such an idle spell wakes it.
// Woken that way, it bets that more system calls follow: it polls every
// 20 µs for at least 50 rounds before it backs off toward 10 ms. A kernel
// that idles between requests therefore restarts that polling on every
// request, and a request that spawns a program (the forking thread held in
// clone3 until the child's exec, then a poll for the child's output and
// exit) pays it for its whole length: ~19 monitor sleeps a spawn, each a
// context switch that on a virtual machine costs more than the monitor's
// work, some preempting the child before its exec (docs/performance.md,
// "Owner spawn: the thirteenth round" and "The runtime's monitor thread").
//
// The runtime never takes the deep sleep while schedtrace is set, and
// offers no other setting for it; schedtrace is read only from the
// environment at start. So Apply, called first by the server's main,
// re-executes the program (same process, arguments and descriptors) with
// schedtrace at its greatest value, 2147483647 ms: the monitor then backs
// off to 10 ms sleeps while the server idles, and a request does not reset
// it. The cost is that backed-off monitor: about 100 wake-ups a second of
// an idle server. The setting also makes the runtime print its scheduler's
// state, a line on stderr every 24.8 days (the first at start when the
// machine has been up longer than that) and the detailed state before a
// fatal error's trace.
//
// The re-executed run puts GODEBUG back as it was, so the programs the
// server starts inherit nothing of it, and on Linux takes back the name
// the process had (a process re-executed from /proc/self/exe is named
// "exe" by the kernel, and ps and pgrep would show that). A GODEBUG that names schedtrace
// already (schedtrace=0 keeps the runtime's default) is left alone, and
// nothing is re-executed.
package sysmon

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/shoalgo/shoal/internal/procname"
)

// Period is the schedtrace set, in milliseconds: the greatest the runtime
// parses (an int32), so that the trace it implies is as rare as it can be.
const Period = 2147483647

// MarkerEnv carries the GODEBUG the program was started with into the
// re-executed run: "unset", or "set:" and the value.
const MarkerEnv = "SHOAL_SYSMON_GODEBUG"

// NameEnv carries the process's name (its comm, what ps, top and pgrep
// show) into the re-executed run, which would otherwise be named after
// the file it was re-executed from ("exe" for /proc/self/exe).
const NameEnv = "SHOAL_SYSMON_NAME"

// step is what the environment asks Apply to do.
type step struct {
	// reexec: the environment to re-execute with; nil when not.
	reexec []string
	// restore: this is the re-executed run; put GODEBUG back to
	// godebug (unset when !hadGodebug), name the process name (when not
	// empty) and drop the marker and the name.
	restore    bool
	godebug    string
	hadGodebug bool
	name       string
}

// plan decides from the environment and the process's name alone.
func plan(env []string, name string) step {
	godebug, had := lookup(env, "GODEBUG")
	if marker, ok := lookup(env, MarkerEnv); ok {
		s := step{restore: true}
		s.godebug, s.hadGodebug = strings.CutPrefix(marker, "set:")
		if !s.hadGodebug {
			s.godebug = ""
		}
		s.name, _ = lookup(env, NameEnv)
		return s
	}
	if names(godebug, "schedtrace") {
		return step{}
	}
	marker := "unset"
	setting := "schedtrace=" + strconv.Itoa(Period)
	if had {
		marker = "set:" + godebug
		if godebug != "" {
			setting = godebug + "," + setting
		}
	}
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k == "GODEBUG" || k == MarkerEnv || k == NameEnv {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "GODEBUG="+setting, MarkerEnv+"="+marker)
	if name != "" {
		out = append(out, NameEnv+"="+name)
	}
	return step{reexec: out}
}

// lookup is the first value of key in env, as the runtime and os.Getenv
// read it.
func lookup(env []string, key string) (string, bool) {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// names reports whether a GODEBUG value sets key.
func names(godebug, key string) bool {
	for _, field := range strings.Split(godebug, ",") {
		if k, _, ok := strings.Cut(field, "="); ok && k == key {
			return true
		}
	}
	return false
}

// Apply is called first thing by a long-lived server's main, before it
// opens anything or marks inherited descriptors close-on-exec. In the
// program's first run it re-executes the program with schedtrace added and
// does not return, unless the re-execution fails: then it returns the
// error and the program goes on with the runtime's default. In the
// re-executed run it puts the environment back as it was started with.
// When GODEBUG already names schedtrace it does nothing.
func Apply() error {
	s := plan(os.Environ(), procname.Get())
	switch {
	case s.restore:
		var err error
		if s.hadGodebug {
			err = os.Setenv("GODEBUG", s.godebug)
		} else {
			err = os.Unsetenv("GODEBUG")
		}
		if err == nil {
			err = os.Unsetenv(MarkerEnv)
		}
		if err == nil {
			err = os.Unsetenv(NameEnv)
		}
		if err == nil && s.name != "" {
			err = procname.Set(s.name)
		}
		return err
	case s.reexec == nil:
		return nil
	}
	err := syscall.Exec(self(), os.Args, s.reexec)
	return fmt.Errorf("re-executing %s: %w", self(), err)
}
