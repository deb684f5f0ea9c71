package host

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/procfs"
)

// TestSelfPathReason: the classifier, on a table of spellings, with
// thread group 100 (threads 100 and 101) and 200 (its supervisor)
// protected and every other thread not; /proc and /srv/p2 are procfs.
func TestSelfPathReason(t *testing.T) {
	prot := func(n int) bool { return n == 100 || n == 101 || n == 200 || n == 201 }
	roots := []string{"/proc", "/srv/p2"}
	for _, tc := range []struct {
		path   string
		refuse bool
	}{
		// The kernel by its self names.
		{"/proc/self", true},
		{"/proc/self/", true},
		{"/proc/self/environ", true},
		{"/proc/self/fd/3", true},
		{"/proc/self/exe", true},
		{"/proc/thread-self", true},
		{"/proc/thread-self/environ", true},
		{"/proc//self/", true},
		{"/proc/./self", true},
		{"/proc/self/../self", true},
		{"/proc/self/./environ", true},
		{"//proc///self//environ//", true},
		{"/proc/1/../self/environ", true},
		{"/proc/1/root/../self", true},
		{"/tmp/../proc/self/status", true},
		{"/proc/self/..", true}, // the walk passes through /proc/self
		{"/proc/7/cwd/..", true},
		{"/proc/7/root/../../etc", true},
		// The kernel and its supervisor by number, their threads too.
		{"/proc/100", true},
		{"/proc/100/", true},
		{"/proc/100/environ", true},
		{"/proc/100/stat", true},
		{"/proc/101/environ", true}, // a thread of 100 named as a process
		{"/proc/100/task/101/environ", true},
		{"/proc/7/task/101/environ", true},
		{"/proc/200/fd/3", true},
		{"/proc/200/task/201", true},
		{"/proc/0100/environ", true}, // the same number, however spelled
		{"/proc/99999999999/environ", true},
		{"/proc/0/stat", true},
		// Handles of any process.
		{"/proc/7/fd", true},
		{"/proc/7/fd/0", true},
		{"/proc/7/fdinfo/0", true},
		{"/proc/7/map_files/400000-401000", true},
		{"/proc/7/cwd", true},
		{"/proc/7/cwd/x", true},
		{"/proc/7/root", true},
		{"/proc/7/root/etc/passwd", true},
		{"/proc/7/exe", true},
		{"/proc/7/ns/net", true},
		{"/proc/7/environ", true},
		{"/proc/7/mem", true},
		{"/proc/7/task/8/fd/1", true},
		{"/proc/7/task/8/environ", true},
		{"/proc/7/task/8/cwd", true},
		// /dev links into /proc/self/fd.
		{"/dev/fd", true},
		{"/dev/fd/", true},
		{"/dev/fd/0", true},
		{"/dev/stdin", true},
		{"/dev/stdout", true},
		{"/dev/stderr", true},
		{"/dev/./stderr", true},
		// Another procfs mount is /proc too.
		{"/srv/p2/self/environ", true},
		{"/srv/p2/100/status", true},
		{"/srv/p2/7/fd/1", true},
		// What stays: ps's reads, /proc itself, the machine's files.
		{"/", false},
		{"/proc", false},
		{"/proc/", false},
		{"/proc/7", false},
		{"/proc/7/stat", false},
		{"/proc/7/status", false},
		{"/proc/7/cmdline", false},
		{"/proc/7/task", false},
		{"/proc/7/task/8/stat", false},
		{"/proc/7/../7/stat", false},
		{"/tmp/../proc/7/stat", false},
		{"/proc/7/task/../stat", false},
		{"/proc/7/task/children", false},
		{"/proc/meminfo", false},
		{"/proc/sys/kernel/pid_max", false},
		{"/proc/selfish", false},
		{"/proc/self2/environ", false},
		{"/procself/environ", false},
		{"/srv/p2", false},
		{"/srv/p/self", false},
		{"/dev/null", false},
		{"/dev/fdx", false},
		{"/home/u/proc/self/environ", false},
		{"/tmp/self/fd/3", false},
	} {
		why := selfPathReason(tc.path, roots, prot)
		if (why != "") != tc.refuse {
			t.Errorf("%q: reason %q, want refused %v", tc.path, why, tc.refuse)
		}
	}
}

// TestGuardSelfOps: the guard judges fs and proc_spawn ops on Target and
// Real alike, refuses before asking its inner gate, passes the others on,
// and refuses a thread it cannot look up.
func TestGuardSelfOps(t *testing.T) {
	asked := 0
	inner := AuthorizerFunc(func(context.Context, Op) error { asked++; return nil })
	tgids := map[int]int{100: 100, 101: 100, 7: 7, 8: 7}
	g := selfGuard{inner: inner, pids: func() []int { return []int{100, 0} }, roots: []string{"/proc"},
		tgid: func(n int) (int, bool) { v, ok := tgids[n]; return v, ok }}
	ctx := context.Background()
	for _, tc := range []struct {
		op     Op
		refuse bool
	}{
		{Op{Effect: FSRead, Target: "/proc/self/environ"}, true},
		{Op{Effect: FSRead, Target: "/home/u/link", Real: "/proc/100/environ"}, true},
		{Op{Effect: FSRead, Target: "/dev/stdin", Real: "/proc/100/fd/0"}, true},
		{Op{Effect: FSWrite, Target: "/proc/self/fd/3"}, true},
		{Op{Effect: FSDelete, Target: "/proc/7/fd/3"}, true},
		{Op{Effect: ProcSpawn, Target: "/proc/self/exe", Real: "/usr/bin/shoal-kernel"}, true},
		{Op{Effect: FSRead, Target: "/proc/101/status"}, true},
		{Op{Effect: FSRead, Target: "/proc/7/task/101/status"}, true},
		{Op{Effect: FSRead, Target: "/proc/555/stat"}, true}, // cannot tell whose
		{Op{Effect: FSRead, Target: "relative/path"}, true},
		{Op{Effect: FSRead, Target: ""}, true},
		{Op{Effect: FSRead, Target: "/proc", Tree: true}, true},
		{Op{Effect: FSRead, Target: "/", Tree: true}, true},
		{Op{Effect: FSRead, Target: "/proc/7", Tree: true}, true},
		{Op{Effect: FSDelete, Target: "/w/link", Real: "/proc/7", Tree: true}, true},
		{Op{Effect: FSRead, Target: "/w/sub", Real: "/w/sub", Tree: true}, false},
		{Op{Effect: FSRead, Target: "/procfoo", Tree: true}, false},
		{Op{Effect: FSRead, Target: "/proc", Tree: false}, false},
		{Op{Effect: FSRead, Target: "/proc/7/stat", Real: "/proc/7/stat"}, false},
		{Op{Effect: FSRead, Target: "/proc/8/status"}, false},
		{Op{Effect: FSRead, Target: "/proc/7/task/8/stat"}, false},
		{Op{Effect: ProcSpawn, Target: "/usr/bin/ps", Real: "/usr/bin/ps"}, false},
		{Op{Effect: EnvRead, Target: "*"}, false},
		{Op{Effect: SysRead, Target: "pid"}, false},
		{Op{Effect: NetConnect, Target: "example.com:443"}, false},
	} {
		before := asked
		err := g.Authorize(ctx, tc.op)
		var de *DeniedError
		switch {
		case tc.refuse && (!errors.As(err, &de) || !errors.Is(err, ErrDenied)):
			t.Errorf("%+v: %v, want a *DeniedError", tc.op, err)
		case tc.refuse && tc.op.Target != "" && strings.HasPrefix(tc.op.Target, "/") && !strings.Contains(err.Error(), SelfRefusal):
			t.Errorf("%+v: %q does not say why", tc.op, err)
		case tc.refuse && asked != before:
			t.Errorf("%+v: refused after asking the inner gate", tc.op)
		case !tc.refuse && err != nil:
			t.Errorf("%+v: %v, want allowed", tc.op, err)
		case !tc.refuse && asked != before+1:
			t.Errorf("%+v: the inner gate was not asked", tc.op)
		}
	}
	// The inner gate's refusal stands.
	g.inner = DenyAll
	if err := g.Authorize(ctx, Op{Effect: FSRead, Target: "/proc/7/stat"}); !errors.Is(err, ErrDenied) {
		t.Errorf("inner refusal lost: %v", err)
	}
}

// TestGuardSelfLive: on this very process, through a real OS host whose
// gate allows everything else: its environment, descriptors, threads and
// executable are refused by every spelling, and the files of another
// process and of the machine are served.
func TestGuardSelfLive(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no procfs here")
	}
	me := os.Getpid()
	h := NewOS(GuardSelf(AllowAll, func() []int { return []int{me} }))
	ctx := context.Background()
	tids, err := os.ReadDir("/proc/self/task")
	if err != nil || len(tids) == 0 {
		t.Fatalf("tasks: %v", err)
	}
	pid := strconv.Itoa(me)
	refused := []string{
		"/proc/self/environ", "/proc/" + pid + "/environ", "/proc/" + pid + "/stat",
		"/proc/thread-self/environ", "/proc/self/fd/0", "/dev/fd/0", "/dev/stdin",
		"/proc//self/./environ", "/proc/self/../self/environ",
	}
	for _, e := range tids {
		refused = append(refused, "/proc/"+pid+"/task/"+e.Name()+"/environ", "/proc/"+e.Name()+"/environ")
	}
	for _, p := range refused {
		if _, err := h.ReadFile(ctx, p); !errors.Is(err, ErrDenied) {
			t.Errorf("ReadFile %s: %v, want denied", p, err)
		}
	}
	if _, err := h.ReadDir(ctx, "/proc/self/fd"); !errors.Is(err, ErrDenied) {
		t.Errorf("ReadDir /proc/self/fd: %v, want denied", err)
	}
	if err := h.WriteFile(ctx, "/proc/self/fd/1", []byte("x"), true); !errors.Is(err, ErrDenied) {
		t.Errorf("WriteFile /proc/self/fd/1: %v, want denied", err)
	}
	if _, err := h.Run(ctx, &Spawn{Argv: []string{"/proc/self/exe", "-test.run=^$"}}); !errors.Is(err, ErrDenied) {
		t.Errorf("running /proc/self/exe: %v, want denied", err)
	}
	if err := h.Copy(ctx, "/proc", t.TempDir()+"/dump", true); !errors.Is(err, ErrDenied) {
		t.Errorf("Copy of /proc, recursive: %v, want denied", err)
	}
	// Links of the session's own, through /proc/self/fd: whatever the
	// descriptor's file is, the walk passes through the kernel's /proc.
	dir := t.TempDir()
	for name, target := range map[string]string{"fds": "/proc/self/fd", "in": "/dev/stdin", "env": "/proc/self/environ", "hop": dir + "/fds"} {
		if err := os.Symlink(target, dir+"/"+name); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{dir + "/fds/0", dir + "/fds/1", dir + "/fds/2", dir + "/in", dir + "/env", dir + "/hop/0"} {
		if _, err := h.ReadFile(ctx, p); !errors.Is(err, ErrDenied) {
			t.Errorf("ReadFile %s: %v, want denied", p, err)
		}
		if err := h.WriteFile(ctx, p, []byte("x"), true); !errors.Is(err, ErrDenied) {
			t.Errorf("WriteFile %s: %v, want denied", p, err)
		}
	}
	if _, err := h.ReadDir(ctx, dir+"/fds"); !errors.Is(err, ErrDenied) {
		t.Errorf("ReadDir of a link to /proc/self/fd: %v, want denied", err)
	}
	// The links themselves are the session's: looked at and removed.
	if _, err := h.Lstat(ctx, dir+"/env"); err != nil {
		t.Errorf("Lstat of the link: %v", err)
	}
	if err := h.Remove(ctx, dir+"/fds", false); err != nil {
		t.Errorf("Remove of the link: %v", err)
	}
	if _, err := h.ReadFile(ctx, "/proc/meminfo"); err != nil {
		t.Errorf("ReadFile /proc/meminfo: %v", err)
	}
	if _, err := os.Stat("/proc/1/stat"); err == nil && me != 1 {
		if _, err := h.ReadFile(ctx, "/proc/1/stat"); err != nil {
			t.Errorf("ReadFile /proc/1/stat: %v", err)
		}
	}
}

// TestProcMounts: procfs mount points from a mountinfo text, escapes
// undone, /proc and other file systems left out.
func TestProcMounts(t *testing.T) {
	text := `21 26 0:20 / /proc rw,relatime - proc proc rw
22 26 0:21 / /sys rw - sysfs sysfs rw
30 26 0:20 / /srv/my\040proc rw shared:1 - proc proc rw
31 26 0:20 / /srv/my\040proc rw shared:1 - proc proc rw
32 26 0:33 / /tmp/notproc rw - tmpfs proc rw
bad line
`
	mounts, err := procfs.ParseMounts(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	got := procMounts(mounts)
	if len(got) != 1 || got[0] != "/srv/my proc" {
		t.Errorf("procMounts = %q", got)
	}
	if r := ProcRoots(); len(r) == 0 || r[0] != "/proc" {
		t.Errorf("ProcRoots = %q", r)
	}
}

// TestParseTgid: the Tgid line of a status text, and none.
func TestParseTgid(t *testing.T) {
	if n, ok := parseTgid([]byte("Name:\tx\nUmask:\t0022\nState:\tS\nTgid:\t4242\nNgid:\t0\n")); !ok || n != 4242 {
		t.Errorf("parseTgid = %d, %v", n, ok)
	}
	for _, s := range []string{"", "Name:\tTgid: 3\n", "Tgid:\tx\n", "Tgid:\t0\n"} {
		if _, ok := parseTgid([]byte(s)); ok {
			t.Errorf("parseTgid(%q) found one", s)
		}
	}
	if n, ok := readTgid(os.Getpid()); !ok || n != os.Getpid() {
		t.Errorf("readTgid(self) = %d, %v", n, ok)
	}
}

// TestGlobSkipsKernelSelf: a glob walking /proc through a guarded host
// lists no descriptor of this process (a listing the guard refuses is
// skipped as an unreadable one is), while a glob over what stays readable
// still finds it.
func TestGlobSkipsKernelSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no procfs here")
	}
	me := os.Getpid()
	h := NewOS(GuardSelf(AllowAll, func() []int { return []int{me} }))
	ctx := context.Background()
	for _, pat := range []string{"/proc/*/fd/*", "/proc/*/task/*/fd/*", "/proc/" + strconv.Itoa(me) + "/*/*"} {
		got, err := h.Glob(ctx, "/", pat, true)
		if err != nil && !errors.Is(err, ErrDenied) {
			t.Errorf("glob %s: %v", pat, err)
		}
		for _, p := range got {
			if strings.HasPrefix(p, "/proc/"+strconv.Itoa(me)+"/") || strings.HasPrefix(p, "/proc/self/") || strings.HasPrefix(p, "/proc/thread-self/") {
				t.Errorf("glob %s listed %s", pat, p)
				break
			}
		}
	}
	if _, err := h.Glob(ctx, "/", "/proc/self/fd/*", true); !errors.Is(err, ErrDenied) {
		t.Errorf("glob /proc/self/fd/*: %v, want denied", err)
	}
	got, err := h.Glob(ctx, "/", "/proc/*/stat", false)
	if err != nil || len(got) == 0 {
		t.Errorf("glob /proc/*/stat: %d, %v", len(got), err)
	}
}

// BenchmarkGuardSelf: what the rule adds to one fs op of an untrusted
// session, for an ordinary path and for another process's /proc entry.
func BenchmarkGuardSelf(b *testing.B) {
	me := os.Getpid()
	g := GuardSelf(AllowAll, func() []int { return []int{me} })
	ctx := context.Background()
	for _, p := range []string{"/home/user/src/project/internal/file.go", "/proc/1/stat"} {
		b.Run(strings.ReplaceAll(p, "/", "_"), func(b *testing.B) {
			op := Op{Effect: FSRead, Target: p, Real: p}
			for b.Loop() {
				_ = g.Authorize(ctx, op)
			}
		})
	}
}
