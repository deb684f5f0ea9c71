package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/kernel"
	"github.com/shoalgo/shoal/internal/memlimit"
)

// The help text. Its lines are written by hand, grouped as a person looks
// for them; the flag names and defaults come from the flag set itself, and
// TestHelpNamesEveryFlag checks that the two agree both ways, so the help
// cannot drift from the flags.

// shortUsage is what a usage error prints after its message.
const shortUsage = `usage: shoal-kernel [--socket PATH] [--session NAME] [--state-dir DIR] [--policy FILE] [LIMIT FLAGS]
       shoal-kernel --help | --version
`

// helpIntro opens --help, after shortUsage.
const helpIntro = `
Keeps Shoal sessions alive and serves them as JSON-RPC 2.0 on a Unix socket
until SIGINT or SIGTERM; once listening it prints "shoal-kernel: ready SOCKET"
on stderr. Connect with shoal --kernel SOCKET, with shoal-mcp, or with any
JSON-RPC client (docs/kernel.md). A flag takes one dash or two, its value
after "=" or a space. SIZE is bytes or a number with KiB, MiB or GiB; TIME
is like 90s, 10m or 1h. The LIMIT FLAGS are below, by group.
`

// helpOutro closes --help.
const helpOutro = `
* derived when the kernel starts from the smallest memory limit it finds
  (address-space limit, cgroup, physical memory); here: %s.
Every bound is described in docs/kernel.md ("Limits"); kernel.info reports
the ones in force under "tunables" and "memory".
`

// helpEntry is one flag's line: its name, the placeholder of its value
// ("" for a switch) and what it does.
type helpEntry struct{ name, arg, text string }

// helpGroup is a titled group of flags.
type helpGroup struct {
	title   string
	entries []helpEntry
}

// helpGroups is every flag of shoal-kernel, by group.
var helpGroups = []helpGroup{
	{"Socket, state and policy", []helpEntry{
		{"socket", "PATH", "listen at PATH, not at the session's socket"},
		{"session", "NAME", "the socket is $XDG_RUNTIME_DIR/shoal/NAME.sock"},
		{"state-dir", "DIR", "tokens, journal, blobs ($XDG_STATE_HOME/shoal)"},
		{"policy", "FILE", "what token principals may do, and their sandbox"},
		{"no-cgroups", "", "contain processes without cgroups (subreaper, walk)"},
		{"debuggable", "", "let same-user debuggers and /proc readers into the kernel"},
		{"v", "", "log diagnostics to stderr"},
		{"version", "", "print the version and exit"},
	}},
	{"Connections", []helpEntry{
		{"max-conns", "N", "connections served at once"},
		{"max-preattach-conns", "N", "connections not yet attached (the oldest is closed)"},
		{"max-principal-conns", "N", "connections attached as one token principal"},
		{"frame-memory", "SIZE", "read buffers of all connections together"},
		{"frame-timeout", "TIME", "time allowed from a request's first byte to its newline"},
		{"outbox-memory", "SIZE", "answers queued for all connections together"},
	}},
	{"Sessions and tasks", []helpEntry{
		{"owner-sessions", "N", "sessions the kernel owner may keep"},
		{"token-sessions", "N", "sessions all token principals may keep together"},
		{"principal-sessions", "N", "sessions one token principal may keep"},
		{"session-idle", "TIME", "close a session unused for this long (0: never)"},
		{"idle-fds", "N", "descriptors all sessions keep open for reuse"},
		{"lang-tasks", "N", "spawn, &, on, parallel tasks of all sessions"},
		{"principal-lang-tasks", "N", "the same for one token principal's sessions"},
		{"task-output", "SIZE", "output one task keeps for task.output (oldest dropped)"},
		{"principal-output", "SIZE", "the same for one principal's tasks together"},
		{"kernel-output", "SIZE", "the same for all tasks together"},
		{"output-spools", "N", "tasks whose output is kept (the oldest forgotten)"},
		{"task-records", "N", "task records kept for a restart (oldest ended first)"},
		{"principal-task-records", "N", "the same for one principal's tasks"},
		{"checkpoint-bytes", "SIZE", "a session's restart checkpoint (the rest dropped)"},
	}},
	{"Memory", []helpEntry{
		{"session-memory", "SIZE", "values and output one session keeps (0: no bound)"},
		{"kernel-memory", "SIZE", "the same for all sessions together (0: no bound)"},
		{"memory-limit", "SIZE", "the soft limit; near it the largest user is cancelled"},
		{"gc-percent", "N", "GC percent while the heap is small (0: GOGC's)"},
	}},
	{"Journal", []helpEntry{
		{"journal-max-bytes", "SIZE", "journal and blobs; past it the oldest go (0: no bound)"},
		{"journal-max-output", "SIZE", "one exec's output kept (at most 64 MiB); the rest cut"},
		{"journal-small-blobs", "N", "small blobs kept in one pack file (at most 65536)"},
		{"journal-pack-bytes", "SIZE", "that pack file's length (at most 32 MiB)"},
	}},
	{"Trash (what rm moved aside)", []helpEntry{
		{"trash-max-bytes", "SIZE", "one principal's trash; past it the oldest go (0: no bound)"},
		{"trash-total-bytes", "SIZE", "all principals' trashes together (0: no bound)"},
		{"trash-max-entries", "N", "files and directories all trashes keep (0: no bound)"},
		{"trash-max-age", "TIME", "how long an item is kept (0: until room is needed)"},
	}},
	{"Events", []helpEntry{
		{"event-channels", "N", "user.* and task.N channels one session keeps"},
		{"event-channel-memory", "SIZE", "payload one channel retains (the oldest is dropped)"},
		{"event-session-memory", "SIZE", "payload one session's channels retain together"},
		{"event-memory", "SIZE", "payload all channels retain together"},
	}},
	{"Plans", []helpEntry{
		{"session-plans", "N", "stored plans one session keeps"},
		{"principal-plans", "N", "stored plans one principal's sessions keep together"},
		{"token-plans", "N", "stored plans all token principals keep together"},
		{"plan-memory", "SIZE", "the token principals' stored plans together"},
		{"plan-ttl", "TIME", "how long a plan waits to be applied before it expires"},
		{"plan-tombstones", "N", "ended plans one principal's refs still report"},
		{"kernel-plan-tombstones", "N", "the same for all principals together"},
	}},
	{"PTYs", []helpEntry{
		{"session-ptys", "N", "PTYs one session keeps open"},
		{"principal-ptys", "N", "PTYs one principal's sessions keep open together"},
		{"kernel-ptys", "N", "PTYs all sessions keep open together"},
		{"pty-cells", "N", "cells (columns × rows) of all open PTYs together"},
	}},
}

// derivedDefaults are the defaults of the flags whose default is derived
// from d at start, by flag name, as the flag set would show them: the
// flags kernel.ApplyMemoryDefaults asks about, at the values it gives.
func derivedDefaults(d memlimit.Derived) map[string]string {
	l := kernel.DefaultLimits()
	var names []string
	kernel.ApplyMemoryDefaults(&l, func(name string) bool {
		names = append(names, name)
		return false
	}, d)
	fs := flag.NewFlagSet("derived", flag.ContinueOnError)
	kernel.RegisterLimitFlags(fs, &l)
	out := make(map[string]string, len(names))
	for _, n := range names {
		if f := fs.Lookup(n); f != nil {
			out[n] = f.DefValue
		}
	}
	return out
}

// printHelp writes --help: the synopsis, then every flag of fs by group,
// one line each with its default, as this machine's memory gives them.
func printHelp(w io.Writer, fs *flag.FlagSet, d memlimit.Derived) {
	var b strings.Builder
	b.WriteString(shortUsage)
	b.WriteString(helpIntro)
	const nameWidth, defWidth = 29, 11
	derived := derivedDefaults(d)
	for _, g := range helpGroups {
		fmt.Fprintf(&b, "\n%-*s%s\n", nameWidth+2, g.title+":", "default")
		for _, e := range g.entries {
			opt := "--" + e.name
			if len(e.name) == 1 {
				opt = "-" + e.name
			}
			if e.arg != "" {
				opt += " " + e.arg
			}
			def := ""
			if v, ok := derived[e.name]; ok {
				def = helpDefault(e, v) + "*"
			} else if f := fs.Lookup(e.name); f != nil {
				def = helpDefault(e, f.DefValue)
			}
			fmt.Fprintf(&b, "  %-*s%-*s%s\n", nameWidth, opt, defWidth, def, e.text)
		}
	}
	fmt.Fprintf(&b, helpOutro, memorySource(d))
	io.WriteString(w, b.String())
}

// helpDefault is how the help shows e's default, given the flag's.
func helpDefault(e helpEntry, def string) string {
	switch e.arg {
	case "":
		return ""
	case "SIZE":
		if n, err := strconv.ParseInt(def, 10, 64); err == nil {
			return humanSize(n)
		}
	case "TIME":
		if t, err := time.ParseDuration(def); err == nil {
			return humanDuration(t)
		}
	}
	if def == "" {
		return ""
	}
	if e.arg == "NAME" {
		return strconv.Quote(def)
	}
	return def
}

// humanSize writes n bytes in the largest binary unit it reaches: whole
// when it is a multiple of it, else to a tenth.
func humanSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		switch {
		case n%u.size == 0 && n != 0:
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		case n >= u.size:
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}

// humanDuration writes t as a person would type it: 10s, 10m, 1h.
func humanDuration(t time.Duration) string {
	switch {
	case t == 0:
		return "0"
	case t%time.Hour == 0:
		return fmt.Sprintf("%dh", t/time.Hour)
	case t%time.Minute == 0:
		return fmt.Sprintf("%dm", t/time.Minute)
	}
	return t.String()
}

// memorySource says where the derived memory defaults come from.
func memorySource(d memlimit.Derived) string {
	switch d.Source {
	case memlimit.SourceRlimitAS:
		return "an address-space limit of " + humanSize(d.Limit)
	case memlimit.SourceCgroup:
		return "a cgroup limit of " + humanSize(d.Limit)
	case memlimit.SourcePhysical:
		return humanSize(d.Limit) + " of physical memory"
	}
	return "no limit found"
}
