package contain

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/procfs"
	"golang.org/x/sys/unix"
)

// cpuGroup is the CPU scheduling group a Manager with Config.CPUGroup
// shares with every process it starts (Features.CPU).
//
// Every command leads a session of its own (setsid), and with
// sched_autogroup_enabled a new session whose cpu cgroup is the root one
// is a new scheduler group at the root: each command's child starts,
// before its exec, as the only task of a fresh root-level group, competing
// with the machine's own threads. Autogroups apply only to tasks in the
// root cpu cgroup; a process in a cpu cgroup of its own, and its children,
// are scheduled in that group however many sessions they make.
//
//   - cgroup v2 with the cpu controller on the Manager's directory ("cpu"
//     in its cgroup.controllers): that directory is a cpu group already,
//     and every leaf below it, which enables no controller, is scheduled
//     in it. Nothing is written (enabling +cpu below it would only split
//     the group per session or per command, each level a scheduler entity
//     more); the Manager itself stays where it is, since its directory is
//     what ends its commands (cgroup.kill).
//   - a v1 cpu hierarchy: the process makes <mount>/<own cpu path>/<name>-
//     <pid> (the name rule of the Manager's other cgroups; a leftover of an
//     earlier process with our pid is ended and removed first) and moves
//     itself, all its threads, into it. Its children inherit it at fork.
//     Close moves the process back to where it was and removes the
//     directory; after SIGKILL the supervisor does (cleanCPUGroup).
type cpuGroup struct {
	v2     bool
	dir    string        // the group's directory
	parent string        // v1: the cpu cgroup the process left, to go back to
	joined chan struct{} // v1: closed once the move has been tried
	ok     bool          // v1: the move succeeded (read after joined)
}

// describe is the Features.CPU text.
func (g *cpuGroup) describe() string {
	if g == nil {
		return "none"
	}
	if g.v2 {
		return "v2:" + g.dir
	}
	<-g.joined
	if !g.ok {
		return "none"
	}
	return "v1:" + g.dir
}

// wait blocks until the process is in its group (or failed to move),
// so that no child is forked in the root group the move was meant to
// leave.
func (g *cpuGroup) wait() {
	if g != nil && !g.v2 {
		<-g.joined
	}
}

// v1Dir is the v1 cpu directory the group lives in, "" for none or v2;
// for the supervisor.
func (g *cpuGroup) v1Dir() string {
	if g == nil || g.v2 {
		return ""
	}
	return g.dir
}

// hasController reports whether dir's cgroup.controllers lists ctl.
func hasController(dir, ctl string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return false
	}
	for _, f := range strings.Fields(string(b)) {
		if f == ctl {
			return true
		}
	}
	return false
}

// newCPUGroup sets up the group for a Manager whose cgroups are cg (nil:
// none, and then no group either) and whose directory name is leaf
// (<name>-<pid>). The v1 move runs in the background, since Linux makes
// a migration wait for an RCU grace period (milliseconds): Scope.start
// waits for it before the first fork.
func newCPUGroup(cg *cgroups, leaf string) *cpuGroup {
	if cg == nil {
		return nil
	}
	if cg.kind == cgV2 && hasController(cg.root, "cpu") {
		return &cpuGroup{v2: true, dir: cg.root}
	}
	mounts, err := procfs.ReadMounts()
	if err != nil {
		return nil
	}
	own, err := ownCgroups()
	if err != nil {
		return nil
	}
	path, ok := own["cpu"]
	if !ok {
		return nil
	}
	for _, m := range mounts {
		if m.FSType != "cgroup" || !m.SuperOpt("cpu") {
			continue
		}
		if g := makeCPUGroup(m.Root, m.Point, path, leaf); g != nil {
			go g.join(os.Getpid())
			return g
		}
	}
	return nil
}

// makeCPUGroup makes leaf below path in the v1 cpu hierarchy mounted at
// point (whose root is root), ending and removing a leftover first, or
// returns nil.
func makeCPUGroup(root, point, path, leaf string) *cpuGroup {
	rel, ok := strings.CutPrefix(path, root)
	if !ok {
		return nil
	}
	parent := filepath.Join(point, rel)
	dir := filepath.Join(parent, leaf)
	if _, err := os.Stat(dir); err == nil {
		// Left by an earlier process that had our pid and died without
		// its supervisor cleaning up: nothing of ours can be in it yet.
		cleanCPUGroup(dir, -1)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
		_ = unix.Rmdir(dir)
		return nil
	}
	return &cpuGroup{dir: dir, parent: parent, joined: make(chan struct{})}
}

// join moves process pid (every thread of it) into the group, or removes
// the directory when it cannot.
func (g *cpuGroup) join(pid int) {
	defer close(g.joined)
	if err := writeFile(filepath.Join(g.dir, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
		_ = unix.Rmdir(g.dir)
		return
	}
	g.ok = true
}

// leave moves this process back to the cpu cgroup it came from and
// removes the group's directory, which its commands, all ended by now,
// have left. A member still there (the supervisor, had it been forked
// after the move and not yet moved itself out) keeps it; the supervisor
// removes it once this process is gone.
func (g *cpuGroup) leave() {
	if g == nil || g.v2 {
		return
	}
	<-g.joined
	if !g.ok {
		return
	}
	_ = writeFile(filepath.Join(g.parent, "cgroup.procs"), strconv.Itoa(os.Getpid()))
	_ = unix.Rmdir(g.dir)
}

// cleanCPUGroup ends what is left in the v1 cpu group dir of a process
// that is gone (all but self, which is moved to dir's parent first; -1:
// none) and removes dir, waiting up to DrainTimeout for killed members to
// be gone.
func cleanCPUGroup(dir string, self int) {
	if self > 0 {
		if err := writeFile(filepath.Join(filepath.Dir(dir), "cgroup.procs"), strconv.Itoa(self)); err != nil {
			return // still in it: neither kill nor remove
		}
	}
	for range killRounds {
		found := false
		for _, pid := range readProcs(dir) {
			if pid != self {
				found = true
				_ = unix.Kill(pid, unix.SIGKILL)
			}
		}
		if !found {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	deadline := time.Now().Add(DrainTimeout)
	for len(readProcs(dir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	_ = unix.Rmdir(dir)
}

// leaveCPUGroup moves this process to the parent of the v1 cpu group dir
// if it is in dir.
func leaveCPUGroup(dir string) {
	own, err := ownCgroups()
	if err != nil {
		return
	}
	if path, ok := own["cpu"]; !ok || !strings.HasSuffix(dir, path) {
		return
	}
	_ = writeFile(filepath.Join(filepath.Dir(dir), "cgroup.procs"), strconv.Itoa(os.Getpid()))
}
