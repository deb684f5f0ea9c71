//go:build linux

package hostile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
)

// cpuPath is the cpu line's path in a /proc/<pid>/cgroup text: the v1
// hierarchy whose controllers include cpu, else the v2 line ("0::").
func cpuPath(t *testing.T, text string) string {
	t.Helper()
	v2 := ""
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
			continue
		}
		if slices.Contains(strings.Split(parts[1], ","), "cpu") {
			return parts[2]
		}
	}
	if v2 == "" {
		t.Fatalf("no cpu line in %q", text)
	}
	return v2
}

// commandCPUPath runs a command that writes its own /proc/self/cgroup and
// returns that file's cpu path.
func commandCPUPath(t *testing.T, k *Kernel, c *client.Client) string {
	t.Helper()
	out := filepath.Join(k.Dir, "cgroup.txt")
	if _, err := c.Exec(Ctx(t), client.ExecParams{Src: "sh { cat /proc/self/cgroup > " + out + " }"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return cpuPath(t, string(b))
}

// TestProcessCPUGroup: with cgroups, a command (a new session, which would
// be a root-level autogroup of its own) runs in the kernel's CPU group,
// not in the root one; the group is gone once the kernel has stopped.
func TestProcessCPUGroup(t *testing.T) {
	k := Start(t, Options{})
	owner := k.Owner(t)
	c := containment(t, k, owner)
	t.Logf("containment: %+v", *c)
	if c.CPU == "" {
		t.Fatal("containment.cpu is empty; want v1:<dir>, v2:<dir> or none")
	}
	if c.CPU == "none" {
		if os.Geteuid() == 0 && c.Cgroup != "none" && v1CPUMounted(t) {
			t.Fatalf("root, with cgroup %s and a v1 cpu hierarchy, yet no cpu group", c.Cgroup)
		}
		t.Skipf("no cpu group on this machine (cgroup %s)", c.Cgroup)
	}
	got := commandCPUPath(t, k, owner)
	kind, dir, _ := strings.Cut(c.CPU, ":")
	switch kind {
	case "v1":
		// The path is relative to the hierarchy's mount: the group's
		// directory ends with it.
		if got == "/" || !strings.HasSuffix(dir, got) {
			t.Errorf("a command's cpu cgroup is %q, want the kernel's %s", got, dir)
		}
	case "v2":
		if !strings.Contains(got+"/", "/"+filepath.Base(dir)+"/") {
			t.Errorf("a command's cgroup is %q, want one below the kernel's %s", got, dir)
		}
	default:
		t.Fatalf("containment.cpu = %q", c.CPU)
	}
	if kind != "v1" {
		return
	}
	k.ExpectExit()
	if err := k.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-k.Exited():
	case <-time.After(2 * shutdownBound):
		t.Fatal("kernel still running 10 s after SIGTERM")
	}
	waitGoneDir(t, dir)
}

// TestProcessCPUGroupNoCgroups: with --no-cgroups nothing changes: no
// group, and a command is in the cpu cgroup the kernel was started in
// (where, in the root one, its session is an autogroup of its own).
func TestProcessCPUGroupNoCgroups(t *testing.T) {
	k := Start(t, Options{Flags: []string{"--no-cgroups"}})
	owner := k.Owner(t)
	if c := containment(t, k, owner); c.CPU != "none" || c.Cgroup != "none" {
		t.Errorf("containment cgroup %q cpu %q, want none and none", c.Cgroup, c.CPU)
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := commandCPUPath(t, k, owner), cpuPath(t, string(self)); got != want {
		t.Errorf("a command's cpu cgroup is %q, want the one the kernel started in, %q", got, want)
	}
}

// v1CPUMounted reports whether this process is in a v1 hierarchy with the
// cpu controller.
func v1CPUMounted(t *testing.T) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 && parts[0] != "0" && slices.Contains(strings.Split(parts[1], ","), "cpu") {
			return true
		}
	}
	return false
}
