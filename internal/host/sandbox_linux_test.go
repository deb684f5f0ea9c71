//go:build linux

package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/contain"
	"github.com/shoalgo/shoal/internal/fastpath"
	"github.com/shoalgo/shoal/internal/sandbox"
)

// hostDialHelper makes the test binary, run as a sandboxed target, dial
// its next argument: exit 0 when connected, 3 when the OS refused
// (EACCES), 4 otherwise.
const hostDialHelper = "__host_test_dial"

func TestMain(m *testing.M) {
	if len(os.Args) > 3 && os.Args[1] == hostProbeHelper {
		os.Exit(probeHelper(os.Args[2], os.Args[3]))
	}
	if len(os.Args) > 2 && os.Args[1] == hostDialHelper {
		c, err := net.DialTimeout("tcp", os.Args[2], 10*time.Second)
		switch {
		case err == nil:
			c.Close()
			os.Exit(0)
		case errors.Is(err, syscall.EACCES):
			os.Exit(3)
		default:
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(4)
		}
	}
	os.Exit(m.Run())
}

// sysRoots lets a dynamically linked program run: binaries, loader,
// libraries, loader cache, /dev/null; not /etc.
var sysRoots = []string{"/bin", "/sbin", "/usr", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache", "/dev/null"}

func needSandboxFS(t *testing.T) {
	t.Helper()
	if s := sandbox.Probe(); !s.FS {
		t.Skipf("Landlock filesystem rules are not enforced here: %s", s.Reason)
	}
}

func fixed(r sandbox.Rules) func() sandbox.Rules { return func() sandbox.Rules { return r } }

func statusOf(res *Result) int {
	if res.Status == nil {
		return -1
	}
	return *res.Status
}

// TestSandboxConfinesEverySpawnPath: the direct path (no stdin), the
// os/exec path (a stdin to feed) and streaming all run under the rules.
func TestSandboxConfinesEverySpawnPath(t *testing.T) {
	needSandboxFS(t)
	if _, err := os.ReadFile("/etc/shadow"); err != nil {
		t.Skipf("/etc/shadow is not readable without a sandbox here, so a refusal would prove nothing: %v", err)
	}
	sh := prog(t, "sh")
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed")
	if err := os.WriteFile(allowed, []byte("yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rules := sandbox.Rules{RestrictFS: true, ReadOnly: append(slices.Clone(sysRoots), allowed)}
	confined := NewOS(AllowAll, WithSandbox(fixed(rules)))
	free := NewOS(AllowAll)
	ctx := context.Background()
	paths := []struct {
		name  string
		spawn func(argv []string) *Spawn
	}{
		{"direct", func(argv []string) *Spawn { return &Spawn{Argv: argv} }},
		{"stdin", func(argv []string) *Spawn { return &Spawn{Argv: argv, Stdin: strings.NewReader("")} }},
		{"streaming", func(argv []string) *Spawn {
			return &Spawn{Argv: argv, StreamOut: &bytes.Buffer{}, StreamErr: &bytes.Buffer{}}
		}},
	}
	for _, p := range paths {
		shadow := []string{sh, "-c", "cat /etc/shadow"}
		res, err := free.Run(ctx, p.spawn(shadow))
		if err != nil || statusOf(res) != 0 {
			t.Fatalf("%s: unconfined cat /etc/shadow: %+v %v", p.name, res, err)
		}
		res, err = confined.Run(ctx, p.spawn(shadow))
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if statusOf(res) == 0 || len(res.Stdout) != 0 || !strings.Contains(string(res.Stderr), "Permission denied") {
			t.Errorf("%s: confined cat /etc/shadow: status %d, %d bytes out, stderr %q; want the OS's refusal",
				p.name, statusOf(res), len(res.Stdout), res.Stderr)
		}
		res, err = confined.Run(ctx, p.spawn([]string{sh, "-c", "cat " + allowed}))
		if err != nil || statusOf(res) != 0 || string(res.Stdout) != "yes\n" {
			t.Errorf("%s: confined cat of an allowed file: %+v %v", p.name, res, err)
		}
	}
}

// TestSandboxSameProcess: the confined program is the process Run
// started, in its own process group, with no_new_privs set, which an
// unconfined child does not have.
func TestSandboxSameProcess(t *testing.T) {
	needSandboxFS(t)
	sh := prog(t, "sh")
	script := `echo "$$ $(cut -d' ' -f5 /proc/$$/stat) $(grep NoNewPrivs /proc/$$/status | tr -d ' \t')"`
	rules := sandbox.Rules{RestrictFS: true, ReadOnly: append(slices.Clone(sysRoots), "/proc")}
	for _, c := range []struct {
		h   Host
		nnp string
	}{{NewOS(AllowAll, WithSandbox(fixed(rules))), "NoNewPrivs:1"}, {NewOS(AllowAll), "NoNewPrivs:0"}} {
		res, err := c.h.Run(context.Background(), &Spawn{Argv: []string{sh, "-c", script}})
		if err != nil {
			t.Fatal(err)
		}
		pid := strconv.Itoa(res.Pid)
		if want := pid + " " + pid + " " + c.nnp + "\n"; string(res.Stdout) != want {
			t.Errorf("stdout %q, want %q (stderr %q)", res.Stdout, want, res.Stderr)
		}
	}
}

// TestSandboxConnectRefused: a confined program connecting to a loopback
// port outside ConnectTCP is refused by the OS; one inside connects.
func TestSandboxConnectRefused(t *testing.T) {
	if s := sandbox.Probe(); !s.Net {
		t.Skipf("Landlock TCP rules are not enforced here: %s", s.Reason)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var ports []uint16
	var addrs []string
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		addrs = append(addrs, l.Addr().String())
		ports = append(ports, uint16(l.Addr().(*net.TCPAddr).Port))
	}
	h := NewOS(AllowAll, WithSandbox(fixed(sandbox.Rules{RestrictNet: true, ConnectTCP: ports[:1]})))
	for i, want := range []int{0, 3} {
		res, err := h.Run(context.Background(), &Spawn{Argv: []string{self, hostDialHelper, addrs[i]}})
		if err != nil {
			t.Fatal(err)
		}
		if statusOf(res) != want {
			t.Errorf("dial %s (allowed ports %v): status %d, stderr %q; want %d", addrs[i], ports[:1], statusOf(res), res.Stderr, want)
		}
	}
}

// TestSandboxHermeticRefusesBeforeRunning: hermetic rules the machine
// cannot enforce fail the spawn with the sandbox's typed error, on every
// path, and nothing runs.
func TestSandboxHermeticRefusesBeforeRunning(t *testing.T) {
	defer sandbox.OverrideSupport(sandbox.Support{Reason: "test: no Landlock"})()
	sh := prog(t, "sh")
	marker := filepath.Join(t.TempDir(), "ran")
	argv := []string{sh, "-c", "touch " + marker}
	h := NewOS(AllowAll, WithSandbox(fixed(sandbox.Rules{RestrictFS: true, Hermetic: true, ReadWrite: []string{"/"}})))
	ctx := context.Background()
	_, err1 := h.Run(ctx, &Spawn{Argv: argv})
	_, err2 := h.Run(ctx, &Spawn{Argv: argv, Stdin: strings.NewReader("")})
	_, err3 := h.(*OS).RunTerminal(ctx, &Spawn{Argv: argv}, -1)
	for i, err := range []error{err1, err2, err3} {
		var ue *sandbox.UnenforceableError
		if !errors.As(err, &ue) || ue.Dimension != "fs" || !errors.Is(err, sandbox.ErrUnenforceable) {
			t.Errorf("spawn %d: %v, want a *sandbox.UnenforceableError", i, err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the program ran")
	}
	// Not hermetic: it runs, unconfined, as Probe says.
	h = NewOS(AllowAll, WithSandbox(fixed(sandbox.Rules{RestrictFS: true})))
	if res, err := h.Run(ctx, &Spawn{Argv: argv}); err != nil || statusOf(res) != 0 {
		t.Errorf("non-hermetic spawn without support: %+v %v", res, err)
	}
}

// TestSandboxMissingProgram: a program that does not exist fails as it
// does unconfined (an error from fork/exec).
func TestSandboxMissingProgram(t *testing.T) {
	needSandboxFS(t)
	h := NewOS(AllowAll, WithSandbox(fixed(sandbox.Rules{RestrictFS: true, ReadOnly: sysRoots})))
	for _, s := range []*Spawn{{Argv: []string{"/nonexistent/prog"}}, {Argv: []string{"/nonexistent/prog"}, Stdin: strings.NewReader("")}} {
		_, err := h.Run(context.Background(), s)
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Run of a missing program: %v, want not-exist", err)
		}
	}
}

// TestSandboxCancelEndsTree: containment holds for a confined program:
// cancelling ends a descendant that left its session, and closing the
// scope ends one a finished command left behind.
func TestSandboxCancelEndsTree(t *testing.T) {
	needSandboxFS(t)
	sh := prog(t, "sh")
	dir := t.TempDir()
	m := contain.New(contain.Config{Cgroups: true, Name: "shoal-sandboxtest"})
	t.Cleanup(m.Close)
	scope := m.NewScope()
	rules := sandbox.Rules{RestrictFS: true, ReadOnly: append(slices.Clone(sysRoots), "/proc"), ReadWrite: []string{dir, "/dev/null"}}
	h := NewOS(AllowAll, WithProcesses(scope), WithSandbox(fixed(rules)), WithWaitDelay(10*time.Millisecond))

	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.Run(ctx, &Spawn{Argv: []string{sh, "-c", "setsid sleep 100 & echo $! > " + pidFile + "; sleep 100"}})
		done <- err
	}()
	pid := escapedPid(t, pidFile)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	wantDead(t, pid, "cancel")

	pidFile2 := filepath.Join(dir, "pid2")
	res, err := h.Run(context.Background(), &Spawn{Argv: []string{sh, "-c",
		"setsid sleep 100 </dev/null >/dev/null 2>&1 & echo $! > " + pidFile2 + "; sleep 1"}})
	if err != nil || statusOf(res) != 0 {
		t.Fatalf("shell: %+v %v", res, err)
	}
	pid = escapedPid(t, pidFile2)
	scope.Close()
	wantDead(t, pid, "Scope.Close")
}

// sandboxTerminalHost is the confined host TestTerminalJob also runs its
// checks on, where Landlock enforces filesystem rules.
var sandboxTerminalHost = func() *OS {
	if !sandbox.Probe().FS {
		return nil
	}
	rules := sandbox.Rules{RestrictFS: true, ReadOnly: sysRoots}
	return newOS(AllowAll, WithSandbox(fixed(rules)))
}

// BenchmarkSpawnTrueSandboxed runs /bin/true through a sandboxed host
// (forked from a confined thread of its own), beside the unconfined host as the
// floor, with filesystem rules and with filesystem and network rules.
func BenchmarkSpawnTrueSandboxed(b *testing.B) {
	truePath := prog(b, "true")
	fsRules := sandbox.Rules{RestrictFS: true, ReadOnly: sysRoots}
	netRules := fsRules
	netRules.RestrictNet, netRules.ConnectTCP = true, []uint16{443}
	for _, c := range []struct {
		name string
		h    Host
		need func() bool
	}{
		{"floor", NewOS(AllowAll), func() bool { return true }},
		{"fs", NewOS(AllowAll, WithSandbox(fixed(fsRules))), func() bool { return sandbox.Probe().FS }},
		{"fs+net", NewOS(AllowAll, WithSandbox(fixed(netRules))), func() bool { return sandbox.Probe().FS && sandbox.Probe().Net }},
	} {
		b.Run(c.name, func(b *testing.B) {
			if !c.need() {
				b.Skip("not enforced here")
			}
			s := &Spawn{Argv: []string{truePath}, Env: []string{"PATH=/usr/bin:/bin"}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := c.h.Run(context.Background(), s)
				if err != nil || statusOf(res) != 0 {
					b.Fatalf("Run = %+v, %v", res, err)
				}
			}
		})
	}
	// pair is issue 24's row: a token principal's spawn (filesystem and
	// network confined, as a policy without net grants makes it; only the
	// filesystem where the network is not enforced here) beside the
	// unconfined spawn, alternating in the same run, with p50s and ratio.
	b.Run("pair", func(b *testing.B) {
		if !sandbox.Probe().FS {
			b.Skip("not enforced here")
		}
		rules := netRules
		if !sandbox.Probe().Net {
			rules = fsRules
		}
		confined, free := NewOS(AllowAll, WithSandbox(fixed(rules))), NewOS(AllowAll)
		s := &Spawn{Argv: []string{truePath}, Env: []string{"PATH=/usr/bin:/bin"}}
		run := func(h Host) func() error {
			return func() error {
				res, err := h.Run(context.Background(), s)
				if err == nil && statusOf(res) != 0 {
					err = fmt.Errorf("status %v", statusOf(res))
				}
				return err
			}
		}
		var p fastpath.Pair
		for b.Loop() {
			if err := p.Run(run(confined), run(free)); err != nil {
				b.Fatal(err)
			}
		}
		p.Report(b, false)
	})
}

// TestSandboxEnvironmentExact: a confined program sees exactly the
// environment an unconfined one does, on both spawn paths, and the
// confinement adds nothing a runtime would read on the way (no GODEBUG
// trace on stderr).
func TestSandboxEnvironmentExact(t *testing.T) {
	needSandboxFS(t)
	env := prog(t, "env")
	vars := []string{"PATH=/usr/bin:/bin", "GODEBUG=inittrace=1", "LD_X=1", "EMPTY=", "DUP=first", "DUP=last", "SPACES=a b  c"}
	confined := NewOS(AllowAll, WithSandbox(fixed(sandbox.Rules{RestrictFS: true, ReadOnly: sysRoots})))
	free := NewOS(AllowAll)
	for _, stdin := range []bool{false, true} {
		run := func(h Host) *Result {
			s := &Spawn{Argv: []string{env}, Env: vars}
			if stdin {
				s.Stdin = strings.NewReader("")
			}
			res, err := h.Run(context.Background(), s)
			if err != nil || statusOf(res) != 0 {
				t.Fatalf("env (stdin %v): %+v %v", stdin, res, err)
			}
			return res
		}
		want, got := run(free), run(confined)
		if string(got.Stdout) != string(want.Stdout) || len(got.Stderr) != 0 {
			t.Errorf("stdin %v: confined env printed %q (stderr %q), unconfined %q", stdin, got.Stdout, got.Stderr, want.Stdout)
		}
	}
}
