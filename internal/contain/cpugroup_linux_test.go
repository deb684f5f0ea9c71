package contain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/shoalgo/shoal/internal/procfs"
)

func TestHasController(t *testing.T) {
	dir := t.TempDir()
	if hasController(dir, "cpu") {
		t.Error("no cgroup.controllers, yet cpu reported")
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.controllers"), []byte("cpuset io memory pids\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if hasController(dir, "cpu") {
		t.Error(`"cpuset io memory pids": cpu reported`)
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.controllers"), []byte("cpuset cpu io memory pids\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !hasController(dir, "cpu") {
		t.Error(`"cpuset cpu io memory pids": cpu not reported`)
	}
}

// TestCPUGroupV2IsManagerDir: a v2 Manager directory with the cpu
// controller is the group itself; nothing is made, nothing moved, and
// Close has nothing to undo. (This machine class's v2 hierarchy may have
// no controllers: a fake directory stands in.)
func TestCPUGroupV2IsManagerDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cgroup.controllers"), []byte("cpu memory pids\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := newCPUGroup(&cgroups{kind: cgV2, root: dir}, "unused")
	if g == nil || !g.v2 {
		t.Fatalf("newCPUGroup = %+v, want the v2 directory", g)
	}
	if got, want := g.describe(), "v2:"+dir; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
	if g.v1Dir() != "" {
		t.Errorf("v1Dir = %q, want none for v2", g.v1Dir())
	}
	g.wait()
	g.leave()
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 1 {
		t.Errorf("the v2 directory holds %v (%v), want only cgroup.controllers", ents, err)
	}
	var none *cpuGroup
	if none.describe() != "none" || none.v1Dir() != "" {
		t.Errorf("nil group: describe %q, v1Dir %q", none.describe(), none.v1Dir())
	}
	none.wait()
	none.leave()
}

// v1CPU returns the v1 cpu hierarchy this process is in (mount root and
// point, own path), or skips.
func v1CPU(t *testing.T) (root, point, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make v1 cpu cgroups")
	}
	mounts, err := procfs.ReadMounts()
	if err != nil {
		t.Skip(err)
	}
	own, err := ownCgroups()
	if err != nil {
		t.Skip(err)
	}
	path, ok := own["cpu"]
	if !ok {
		t.Skip("no v1 cpu hierarchy")
	}
	for _, m := range mounts {
		if m.FSType == "cgroup" && m.SuperOpt("cpu") {
			return m.Root, m.Point, path
		}
	}
	t.Skip("no v1 cpu hierarchy mounted")
	return
}

// sleeperIn starts sleep 100 and moves it into dir.
func sleeperIn(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "100")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if err := writeFile(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(cmd.Process.Pid)); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestCPUGroupLeftoverEnded: a v1 cpu group left by an earlier process
// with the same name (our pid) is ended and made afresh, empty.
func TestCPUGroupLeftoverEnded(t *testing.T) {
	root, point, path := v1CPU(t)
	leaf := "shoal-cpugtest-" + strconv.Itoa(os.Getpid())
	g := makeCPUGroup(root, point, path, leaf)
	if g == nil {
		t.Skip("cannot make a v1 cpu cgroup here")
	}
	t.Cleanup(func() { cleanCPUGroup(g.dir, -1) })
	left := sleeperIn(t, g.dir)
	g2 := makeCPUGroup(root, point, path, leaf)
	if g2 == nil {
		t.Fatal("no group made over the leftover")
	}
	if err := left.Wait(); err == nil {
		t.Error("the leftover's member exited cleanly; want it killed")
	}
	if pids := readProcs(g2.dir); len(pids) != 0 {
		t.Errorf("the new group holds %v, want nothing", pids)
	}
}

// TestCPUGroupCleaned: what the supervisor does once its kernel is gone:
// it leaves the group, ends what is left in it, and removes it.
func TestCPUGroupCleaned(t *testing.T) {
	root, point, path := v1CPU(t)
	g := makeCPUGroup(root, point, path, "shoal-cpugclean-"+strconv.Itoa(os.Getpid()))
	if g == nil {
		t.Skip("cannot make a v1 cpu cgroup here")
	}
	left := exec.Command("sleep", "100")
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = left.Process.Kill(); _ = left.Wait() })
	go g.join(left.Process.Pid)
	if got, want := g.describe(), "v1:"+g.dir; got != want {
		t.Fatalf("describe after join = %q, want %q", got, want)
	}
	if pids := readProcs(g.dir); len(pids) != 1 || pids[0] != left.Process.Pid {
		t.Fatalf("the group holds %v, want [%d]", pids, left.Process.Pid)
	}
	cleanCPUGroup(g.dir, os.Getpid())
	if _, err := os.Stat(g.dir); !os.IsNotExist(err) {
		t.Cleanup(func() { cleanCPUGroup(g.dir, -1) })
		t.Fatalf("group %s still there (%v)", g.dir, err)
	}
	if err := left.Wait(); err == nil {
		t.Error("the group's member exited cleanly; want it killed")
	}
}
