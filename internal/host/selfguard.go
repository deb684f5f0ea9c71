package host

import (
	"context"
	"strconv"
	"strings"
)

// The kernel is not a file. A session's builtins run inside the kernel
// process, so through procfs a path can name the kernel itself:
// /proc/self/environ is the kernel's environment, /proc/self/fd/N its
// descriptors (the socket, the journal, the pipe to its supervisor), and
// /proc/self/exe run as a program is the kernel again. GuardSelf keeps an
// untrusted session away from all of that, whatever its grants say.
//
// What it refuses, judged on an op's Target and on its resolved Real
// (both normalised first: empty and "." components dropped, ".." popped)
// and, when links were followed (Real differs from Target), on every place
// the walk of Target's links passes through:
//
//   - /proc/self and /proc/thread-self, and everything beneath them;
//   - /proc/<n> and everything beneath it when thread n belongs to a
//     protected thread group (the kernel's, its supervisor's): its Tgid,
//     read from /proc/<n>/status, is one of them. A thread that cannot be
//     looked up (gone, or not there yet) is refused too, so a thread the
//     kernel starts between the check and the operation cannot be reached;
//   - /proc/<p>/task/<t> and everything beneath it likewise, for a
//     protected t;
//   - in every process, p and task t alike, the entries that are
//     descriptors or magic links, or carry what ptrace guards: fd,
//     fdinfo, map_files, cwd, root, exe, ns, environ and mem
//     (procHandle); another process's stat, status, cmdline and the rest
//     stay readable where the grants allow them, as ps needs;
//   - /dev/fd, /dev/stdin, /dev/stdout and /dev/stderr, and beneath them:
//     links into /proc/self/fd;
//   - for an op on a whole tree (Op.Tree: a recursive copy, remove or
//     watch), any path whose tree holds procfs: a procfs root, a path
//     beneath one, or one above one ("/"), since the walk would read
//     those entries as plain files.
//
// Any procfs mount point named in ProcRoots counts as /proc.

// procHandles are the per-process procfs entries refused in every process:
// descriptor and magic links, and the memory and environment ptrace
// guards. The environment of a process the kernel's owner started is the
// kernel's own, and mem is a way to write into a process. (This and
// devLink are switches, not map literals, which a package initialiser
// would build at every start.)
func procHandle(name string) bool {
	switch name {
	case "fd", "fdinfo", "map_files", "cwd", "root", "exe", "ns", "environ", "mem":
		return true
	}
	return false
}

// devLink reports the /dev entries that are links into /proc/self/fd.
func devLink(name string) bool {
	switch name {
	case "fd", "stdin", "stdout", "stderr":
		return true
	}
	return false
}

// maxTgidScan bounds the bytes of /proc/<n>/status read to find its Tgid
// line (the fourth; the name before it is at most 64 bytes escaped).
const maxTgidScan = 1024

// SelfRefusal is the reason a GuardSelf refusal gives.
const SelfRefusal = "the kernel's own process is not accessible"

// GuardSelf returns an Authorizer that refuses every fs and proc_spawn op
// whose Target or Real reaches a protected process through procfs (see the
// list above), then asks inner. pids names the protected thread groups
// (the kernel's pid and its supervisor's; zeros are ignored) and is called
// once per op that needs it. Other ops go to inner unchanged. A Target that
// is not absolute is refused, as the policy gate refuses it.
func GuardSelf(inner Authorizer, pids func() []int) Authorizer {
	if inner == nil {
		inner = DenyAll
	}
	return selfGuard{inner: inner, pids: pids, roots: ProcRoots(), tgid: readTgid, walk: walkReason}
}

type selfGuard struct {
	inner Authorizer
	pids  func() []int
	roots []string
	tgid  func(tid int) (int, bool)
	// walk judges every place the walk of a path's symlinks reaches
	// (walkReason).
	walk func(p string, follow bool, judge func(string) string) string
}

func (g selfGuard) Authorize(ctx context.Context, op Op) error {
	switch op.Effect {
	case FSRead, FSWrite, FSDelete, ProcSpawn:
		if !strings.HasPrefix(op.Target, "/") {
			return Denied(op, "path is not absolute")
		}
		prot := g.protected
		for _, p := range []string{op.Target, op.Real} {
			if p == "" {
				continue
			}
			why := selfPathReason(p, g.roots, prot)
			if why == "" && op.Tree {
				why = treeReason(p, g.roots)
			}
			if why != "" {
				return Denied(op, SelfRefusal+": "+why)
			}
		}
		// Links were followed: judge every place on the way too.
		if g.walk != nil && op.Real != "" && op.Real != op.Target {
			judge := func(place string) string { return selfPathReason(place, g.roots, prot) }
			if why := g.walk(op.Target, followsFinal(op.Real), judge); why != "" {
				return Denied(op, SelfRefusal+": "+why)
			}
		}
	}
	return g.inner.Authorize(ctx, op)
}

// protected reports whether thread n is in a protected thread group, or
// cannot be looked up.
func (g selfGuard) protected(n int) bool {
	var pids []int
	if g.pids != nil {
		pids = g.pids()
	}
	in := func(x int) bool {
		for _, p := range pids {
			if p > 0 && p == x {
				return true
			}
		}
		return false
	}
	if in(n) {
		return true
	}
	tgid, ok := g.tgid(n)
	return !ok || in(tgid)
}

// selfPathReason says why the path p reaches a protected process ("" when
// it does not). roots are the procfs mount points; protected judges a
// thread id. p is walked as the kernel walks it, empty and "." components
// dropped and ".." popping the one before; every place the walk reaches is
// judged (the end, and each place a ".." leaves), so "/proc/7/root/.."
// is refused as /proc/7/root is, whatever the link leads to. A path that is
// not absolute is walked from "/".
func selfPathReason(p string, roots []string, protected func(int) bool) string {
	var memo map[int]bool // each thread looked up once per path
	prot := func(n int) bool {
		v, ok := memo[n]
		if !ok {
			if memo == nil {
				memo = map[int]bool{}
			}
			v = protected(n)
			memo[n] = v
		}
		return v
	}
	rcs := make([][]string, len(roots))
	for i, r := range roots {
		rcs[i] = components(r)
	}
	var stack []string
	for c := range strings.SplitSeq(p, "/") {
		switch c {
		case "", ".":
		case "..":
			if why := placeReason(stack, rcs, prot); why != "" {
				return why
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		default:
			stack = append(stack, c)
		}
	}
	return placeReason(stack, rcs, prot)
}

// placeReason judges one normalised place, as its components; rcs are
// the procfs roots' components. The rules are closed under going deeper:
// a place beneath a refused one is refused.
func placeReason(comps []string, rcs [][]string, protected func(int) bool) string {
	if len(comps) >= 2 && comps[0] == "dev" && devLink(comps[1]) {
		return "/dev/" + comps[1] + " is a link to the kernel's own descriptors"
	}
	for _, rc := range rcs {
		if len(comps) <= len(rc) || !hasPrefix(comps, rc) {
			continue
		}
		if why := procReason(comps[len(rc):], protected); why != "" {
			return why
		}
	}
	return ""
}

// treeReason says why an op on the whole tree beneath p (a recursive copy,
// remove or watch) would reach into procfs: p is a procfs root, beneath
// one, or above one (as "/" is). Such a walk would read the kernel's own
// entries, and every process's environ and mem, as plain files.
func treeReason(p string, roots []string) string {
	comps := components(p)
	for _, r := range roots {
		rc := components(r)
		if hasPrefix(comps, rc) || hasPrefix(rc, comps) {
			return "the tree of " + p + " holds procfs (" + r + ")"
		}
	}
	return ""
}

// procReason judges the components of a path beneath a procfs root.
func procReason(rest []string, protected func(int) bool) string {
	switch first := rest[0]; {
	case first == "self" || first == "thread-self":
		return "/proc/" + first + " is the kernel's own process"
	case isDigits(first):
		n, ok := atoiPid(first)
		if !ok || protected(n) {
			return "process " + first + " is the kernel or its supervisor, or cannot be told apart from them"
		}
		rest = rest[1:]
	default:
		return ""
	}
	if len(rest) >= 2 && rest[0] == "task" && isDigits(rest[1]) {
		n, ok := atoiPid(rest[1])
		if !ok || protected(n) {
			return "thread " + rest[1] + " is the kernel's or its supervisor's, or cannot be told apart from them"
		}
		rest = rest[2:]
	}
	if len(rest) > 0 && procHandle(rest[0]) {
		return rest[0] + " of a process is a handle on it, never a file for a session"
	}
	return ""
}

// components splits p into its components as a normalised absolute path
// has them: empty and "." dropped, ".." removing the one before (never
// above the root).
func components(p string) []string {
	var out []string
	for c := range strings.SplitSeq(p, "/") {
		switch c {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, c)
		}
	}
	return out
}

// hasPrefix reports whether comps starts with prefix (equal included).
func hasPrefix(comps, prefix []string) bool {
	if len(prefix) > len(comps) {
		return false
	}
	for i, c := range prefix {
		if comps[i] != c {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// atoiPid reads a thread id; ok is false for one no kernel could have
// (too long, zero), which the caller refuses rather than guesses at.
func atoiPid(s string) (int, bool) {
	if len(s) > 10 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// parseTgid finds the Tgid line of a /proc/<n>/status text.
func parseTgid(b []byte) (int, bool) {
	for line := range strings.SplitSeq(string(b), "\n") {
		v, ok := strings.CutPrefix(line, "Tgid:")
		if !ok {
			continue
		}
		return atoiPid(strings.TrimSpace(v))
	}
	return 0, false
}
