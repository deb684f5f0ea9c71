package contain

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// forkAttrsOnly limits BenchmarkForkAttrs to the variants it names
// (comma-separated), so that a trace of the benchmark's children (perf,
// scripts/spawn-sched) sees one kind of child at a time.
var forkAttrsOnly = flag.String("forkattrs", "", "BenchmarkForkAttrs: only these variants (comma-separated)")

// BenchmarkForkAttrs forks /bin/true with syscall.ForkExec once per
// variant per iteration, in turn (each variant first in turn, so that a
// shared machine's load falls on all alike), each variant adding one of
// the attributes a kernel's command is started with (Scope.start and
// host's procAttr) to a bare fork, and "kernel" all of them: a session of
// its own (setsid), a process group instead (setpgid), Pdeathsig, a pidfd,
// placement at clone in a cgroup v2 leaf that is empty between spawns
// (as the kernel's pooled leaves are) or one that a sleeping process keeps
// populated (so the leaf's css_set is never freed between spawns), and a
// session with a short scheduler slice (sched_setattr's runtime, 100 µs:
// set on the forking thread before the fork, so the child inherits it,
// and reset on both after it). Per
// variant: the p50 of ForkExec's return (CLONE_VFORK: the child has
// exec'd), the p50 of the whole spawn to the reap, and the forking
// thread's CPU per spawn (RUSAGE_THREAD; the child's not counted). The
// cgroup variants are left out where no cgroup v2 directory can be made.
func BenchmarkForkAttrs(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true program")
	}
	null, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(null)
	empty, held := -1, -1
	cg := detectCgroups("shoal-forkattrs")
	if cg != nil {
		// Runs last (defers run in turn): after the sleeper's end and the
		// leaves' closes below.
		defer func() {
			cg.kill(cg.root)
			_ = cg.remove(cg.root, time.Second)
		}()
	}
	if cg != nil && cg.kind == cgV2 {
		empty, held = openLeafDir(b, cg, "empty"), openLeafDir(b, cg, "held")
		defer unix.Close(empty)
		defer unix.Close(held)
		sleeper := exec.Command("sleep", "3600")
		sleeper.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: held}
		if err := sleeper.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() {
			_ = sleeper.Process.Kill()
			_ = sleeper.Wait()
		}()
	}
	pidfd := -1
	type variant struct {
		name  string
		attr  func() *syscall.SysProcAttr
		slice bool
		fork  []time.Duration
		whole []time.Duration
		cpu   time.Duration
	}
	vs := []*variant{
		{name: "bare", attr: func() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }},
		{name: "setsid", attr: func() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }},
		{name: "setpgid", attr: func() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }},
		{name: "pdeathsig", attr: func() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }},
		{name: "pidfd", attr: func() *syscall.SysProcAttr { return &syscall.SysProcAttr{PidFD: &pidfd} }},
		{name: "setsid-slice", attr: func() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }, slice: true},
	}
	kernel := func(leaf int) func() *syscall.SysProcAttr {
		return func() *syscall.SysProcAttr {
			a := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, PidFD: &pidfd}
			if leaf >= 0 {
				a.UseCgroupFD, a.CgroupFD = true, leaf
			}
			return a
		}
	}
	if empty >= 0 {
		vs = append(vs,
			&variant{name: "leaf", attr: func() *syscall.SysProcAttr { return &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: empty} }},
			&variant{name: "heldleaf", attr: func() *syscall.SysProcAttr { return &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: held} }},
			&variant{name: "kernel-heldleaf", attr: kernel(held)})
	}
	vs = append(vs, &variant{name: "kernel", attr: kernel(empty)})
	if *forkAttrsOnly != "" {
		keep := strings.Split(*forkAttrsOnly, ",")
		vs = slices.DeleteFunc(vs, func(v *variant) bool { return !slices.Contains(keep, v.name) })
		if len(vs) == 0 {
			b.Skipf("no variant named in -forkattrs %q", *forkAttrsOnly)
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	threadCPU := func() time.Duration {
		var ru unix.Rusage
		_ = unix.Getrusage(unix.RUSAGE_THREAD, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	argv, env := []string{truePath}, []string{"PATH=/usr/bin:/bin"}
	i := 0
	for b.Loop() {
		for k := range vs {
			v := vs[(i+k)%len(vs)]
			attr := &syscall.ProcAttr{Env: env, Files: []uintptr{uintptr(null), uintptr(null), uintptr(null)}, Sys: v.attr()}
			c0, t0 := threadCPU(), time.Now()
			if v.slice {
				if err := unix.SchedSetAttr(0, &unix.SchedAttr{Runtime: 100_000}, 0); err != nil {
					b.Skipf("sched_setattr: %v", err)
				}
			}
			pid, err := syscall.ForkExec(truePath, argv, attr)
			if v.slice {
				_ = unix.SchedSetAttr(0, &unix.SchedAttr{}, 0)
				if err == nil {
					_ = unix.SchedSetAttr(pid, &unix.SchedAttr{}, 0)
				}
			}
			t1 := time.Now()
			if err != nil {
				b.Fatalf("%s: %v", v.name, err)
			}
			var ws syscall.WaitStatus
			for {
				_, err = syscall.Wait4(pid, &ws, 0, nil)
				if err != syscall.EINTR {
					break
				}
			}
			t2 := time.Now()
			v.cpu += threadCPU() - c0
			if pidfd >= 0 {
				unix.Close(pidfd)
				pidfd = -1
			}
			if err != nil || !ws.Exited() || ws.ExitStatus() != 0 {
				b.Fatalf("%s: wait4: %v, status %v", v.name, err, ws)
			}
			v.fork = append(v.fork, t1.Sub(t0))
			v.whole = append(v.whole, t2.Sub(t0))
		}
		i++
	}
	for _, v := range vs {
		slices.Sort(v.fork)
		slices.Sort(v.whole)
		b.ReportMetric(float64(v.fork[len(v.fork)/2].Microseconds()), v.name+"-fork-p50-us")
		b.ReportMetric(float64(v.whole[len(v.whole)/2].Microseconds()), v.name+"-p50-us")
		b.ReportMetric(float64(v.cpu.Microseconds())/float64(len(v.fork)), v.name+"-cpu-us")
	}
}

// openLeafDir makes the leaf name below cg's root and opens it for
// CLONE_INTO_CGROUP.
func openLeafDir(b *testing.B, cg *cgroups, name string) int {
	dir, err := cg.mkdir(cg.root, name)
	if err != nil {
		b.Fatal(err)
	}
	fd, err := unix.Open(filepath.Clean(dir), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	return fd
}
