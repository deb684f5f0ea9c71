//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dialHelper makes the test binary, run as a confined program, dial
// the address in its next argument: exit 0 when connected, exitDenied
// when the OS refused (EACCES), 4 otherwise.
const (
	dialHelper   = "__sandbox_test_dial"
	listenHelper = "__sandbox_test_listen" // the same for a bind of 127.0.0.1:<port>
	exitDenied   = 3
)

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == dialHelper {
		os.Exit(dial(os.Args[2]))
	}
	if len(os.Args) > 2 && os.Args[1] == listenHelper {
		os.Exit(bind(os.Args[2]))
	}
	if len(os.Args) > 3 && os.Args[1] == bypassHelper {
		os.Exit(bypass(os.Args[2], os.Args[3]))
	}
	mainThreadFindings = onTheMainThread()
	os.Exit(m.Run())
}

func dial(addr string) int {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		os.Stderr.WriteString("dial: " + err.Error() + "\n")
		if errors.Is(err, syscall.EACCES) {
			return exitDenied
		}
		return 4
	}
	c.Close()
	return 0
}

// bypassHelper tries a way around connect(2) named by its first argument
// to the port in its second: exit 0 when the system call succeeded,
// exitDenied when it was refused.
const bypassHelper = "__sandbox_test_bypass"

func bypass(how, port string) int {
	p, _ := strconv.Atoi(port)
	sa := &unix.SockaddrInet4{Port: p, Addr: [4]byte{127, 0, 0, 1}}
	var err error
	switch how {
	case "mptcp":
		var fd int
		if fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP); err == nil {
			err = unix.Connect(fd, sa)
		}
	case "sctp":
		_, err = unix.Socket(unix.AF_INET, unix.SOCK_SEQPACKET, 0)
	case "vsock":
		_, err = unix.Socket(unix.AF_VSOCK, unix.SOCK_STREAM, 0)
	case "sendto-fastopen", "sendmsg-fastopen":
		var fd int
		if fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0); err == nil {
			if how == "sendto-fastopen" {
				err = unix.Sendto(fd, []byte("x"), unix.MSG_FASTOPEN, sa)
			} else {
				err = unix.Sendmsg(fd, []byte("x"), nil, sa, unix.MSG_FASTOPEN)
			}
		}
	case "io_uring":
		var params [120]byte // struct io_uring_params
		r, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if e != 0 {
			err = e
		} else {
			unix.Close(int(r))
		}
	case "go-mptcp":
		var d net.Dialer
		d.SetMultipathTCP(true)
		var c net.Conn
		if c, err = d.Dial("tcp4", "127.0.0.1:"+port); err == nil {
			c.Close()
		}
	case "udp":
		var c net.Conn
		if c, err = net.Dial("udp4", "127.0.0.1:"+port); err == nil {
			_, err = c.Write([]byte("x"))
			c.Close()
		}
	default:
		err = errors.New("unknown bypass " + how)
	}
	if err != nil {
		os.Stderr.WriteString(how + ": " + err.Error() + "\n")
		return exitDenied
	}
	return 0
}

func bind(port string) int {
	l, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		os.Stderr.WriteString("listen: " + err.Error() + "\n")
		if errors.Is(err, syscall.EACCES) {
			return exitDenied
		}
		return 4
	}
	l.Close()
	return 0
}

// systemRoots is what a dynamically linked program needs to run at all:
// its binary and the loader, libraries and loader cache, but not /etc.
var systemRoots = []string{"/bin", "/sbin", "/usr", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache", "/dev/null"}

func needFS(t *testing.T) {
	t.Helper()
	if s := Probe(); !s.FS {
		t.Skipf("Landlock filesystem rules are not enforced here: %s", s.Reason)
	}
}

func needNet(t *testing.T) {
	t.Helper()
	if s := Probe(); !s.Net {
		t.Skipf("Landlock TCP rules are not enforced here: %s", s.Reason)
	}
}

// run runs argv confined by r and returns its stdout, stderr and exit
// status.
func run(t *testing.T, r Rules, argv ...string) (string, string, int) {
	t.Helper()
	return runConfined(t, r, exec.Command(argv[0], argv[1:]...))
}

// runConfined runs cmd (stdin the null device unless set) forked from a
// thread confined by r, as package contain does for the host.
func runConfined(t *testing.T, r Rules, cmd *exec.Cmd) (string, string, int) {
	t.Helper()
	c, err := Prepare(r)
	if err != nil || c == nil {
		t.Fatalf("Prepare(%+v) = %v, %v", r, c, err)
	}
	defer c.Close()
	return runOn(t, c, cmd)
}

func runOn(t *testing.T, c *Confinement, cmd *exec.Cmd) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if cmd.Stdin == nil {
		cmd.Stdin = devNull(t)
	}
	var runErr error
	if err := c.Run(func() { runErr = cmd.Run() }); err != nil {
		t.Fatalf("Run: %v", err)
	}
	var ee *exec.ExitError
	if runErr != nil && !errors.As(runErr, &ee) {
		t.Fatalf("run %q: %v", cmd.Args, runErr)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// devNull is the null device, opened on the test's own thread (a
// confined thread could not open it unless granted).
func devNull(t *testing.T) *os.File {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func runArgv(t *testing.T, argv []string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run %q: %v", argv, err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

func TestShadowDeniedByTheOS(t *testing.T) {
	needFS(t)
	if _, err := os.ReadFile("/etc/shadow"); err != nil {
		t.Skipf("/etc/shadow is not readable without a sandbox here, so a refusal would prove nothing: %v", err)
	}
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed.txt")
	if err := os.WriteFile(allowed, []byte("allowed content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := Rules{RestrictFS: true, ReadOnly: append(slices.Clone(systemRoots), allowed)}

	// Outside the sandbox the same command reads it: the refusal below
	// is the sandbox's.
	if out, _, code := runArgv(t, []string{"/bin/sh", "-c", "cat /etc/shadow"}); code != 0 || out == "" {
		t.Fatalf("unconfined cat /etc/shadow: status %d", code)
	}
	out, errs, code := run(t, r, "/bin/sh", "-c", "cat /etc/shadow")
	if code == 0 || out != "" {
		t.Fatalf("confined cat /etc/shadow: status %d, stdout %d bytes; want a refusal", code, len(out))
	}
	if !strings.Contains(errs, "Permission denied") {
		t.Errorf("confined cat /etc/shadow: stderr %q, want Permission denied", errs)
	}
	out, errs, code = run(t, r, "/bin/sh", "-c", "cat "+allowed)
	if code != 0 || out != "allowed content\n" {
		t.Errorf("confined cat of an allowed file: status %d, stdout %q, stderr %q", code, out, errs)
	}
	// A file beside the allowed one is not beneath any root.
	other := filepath.Join(dir, "other.txt")
	os.WriteFile(other, []byte("x"), 0o644)
	if _, errs, code := run(t, r, "/bin/sh", "-c", "cat "+other); code == 0 || !strings.Contains(errs, "Permission denied") {
		t.Errorf("confined cat of a sibling file: status %d, stderr %q, want a refusal", code, errs)
	}
}

func TestWritesOnlyBeneathReadWrite(t *testing.T) {
	needFS(t)
	work, elsewhere := t.TempDir(), t.TempDir()
	r := Rules{RestrictFS: true, ReadOnly: systemRoots, ReadWrite: []string{work}}
	in := filepath.Join(work, "sub", "f")
	if _, errs, code := run(t, r, "/bin/sh", "-c", "mkdir "+filepath.Dir(in)+" && echo hi > "+in+" && mv "+in+" "+in+"2 && rm "+in+"2"); code != 0 {
		t.Fatalf("write beneath the read-write root: status %d, stderr %q", code, errs)
	}
	out := filepath.Join(elsewhere, "f")
	if _, errs, code := run(t, r, "/bin/sh", "-c", "echo hi > "+out); code == 0 || !strings.Contains(errs, "Permission denied") {
		t.Errorf("write outside: status %d, stderr %q, want a refusal", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was created outside the read-write root", out)
	}
	// Read-only means no truncation either.
	ro := filepath.Join(elsewhere, "ro")
	os.WriteFile(ro, []byte("keep"), 0o644)
	r.ReadOnly = append(slices.Clone(systemRoots), ro)
	if _, _, code := run(t, r, "/usr/bin/truncate", "-s", "0", ro); code == 0 {
		t.Errorf("truncate of a read-only file succeeded")
	}
	if b, _ := os.ReadFile(ro); string(b) != "keep" {
		t.Errorf("read-only file now holds %q", b)
	}
}

func TestNonexistentRootIsSkipped(t *testing.T) {
	needFS(t)
	r := Rules{RestrictFS: true, ReadOnly: append(slices.Clone(systemRoots), "/nonexistent/shoal/root")}
	if out, errs, code := run(t, r, "/bin/echo", "ok"); code != 0 || out != "ok\n" {
		t.Errorf("status %d, stdout %q, stderr %q", code, out, errs)
	}
}

// listen opens a loopback listener that accepts and closes connections.
func listen(t *testing.T) (string, uint16) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l.Addr().String(), uint16(l.Addr().(*net.TCPAddr).Port)
}

// queueListener opens a loopback listener that accepts nothing by itself:
// drain accepts and closes what its queue holds and says how many. On
// loopback a connection is in the queue when the connecting process's
// connect (or fast-open send) returns, so after that process has exited
// drain counts every connection it made, however late the test's own
// goroutines run (a listener accepting in the background counted an
// unconfined run's connection after the confined run had begun, under load).
func queueListener(t *testing.T) (port uint16, drain func() int) {
	t.Helper()
	l, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	drain = func() int {
		n := 0
		for {
			// The queue's connections are there already: the deadline
			// only ends the wait once it is empty.
			if err := l.SetDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			c, err := l.Accept()
			if err != nil {
				return n
			}
			c.Close()
			n++
		}
	}
	return uint16(l.Addr().(*net.TCPAddr).Port), drain
}

// TestConnectBypassesClosed: the ways past Landlock's TCP rules that
// this kernel leaves open (MPTCP, TCP Fast Open, io_uring, other
// protocols) are refused by the confined thread's socket filter; the denied
// listener sees no connection. Unconfined, the same calls work where
// the kernel offers them, so the refusals are the sandbox's.
func TestConnectBypassesClosed(t *testing.T) {
	needNet(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, allowedPort := listen(t)
	deniedPort, drain := queueListener(t)
	port := strconv.Itoa(int(deniedPort))
	r := Rules{RestrictNet: true, ConnectTCP: []uint16{allowedPort}}
	for _, how := range []string{"mptcp", "sctp", "vsock", "sendto-fastopen", "sendmsg-fastopen", "io_uring", "go-mptcp"} {
		_, uerrs, ucode := runArgv(t, []string{self, bypassHelper, how, port})
		unconfined := drain()
		if _, errs, code := run(t, r, self, bypassHelper, how, port); code != exitDenied {
			t.Errorf("confined %s to port %s: status %d, stderr %q; want a refusal", how, port, code, errs)
		}
		if n := drain(); n != 0 {
			t.Errorf("confined %s: the denied listener accepted %d connections", how, n)
		}
		t.Logf("%s unconfined: status %d %s, %d connections", how, ucode, strings.TrimSpace(uerrs), unconfined)
	}
	// UDP is outside Landlock's TCP rules and stays allowed (DNS).
	if _, errs, code := run(t, r, self, bypassHelper, "udp", port); code != 0 {
		t.Errorf("confined UDP send: status %d, stderr %q; want it allowed", code, errs)
	}
}

func TestCapabilitiesDropped(t *testing.T) {
	needFS(t)
	r := Rules{RestrictFS: true, ReadOnly: append(slices.Clone(systemRoots), "/proc")}
	script := "grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):' /proc/self/status | tr -d ' \\t' | tr '\\n' ' '"
	out, errs, code := run(t, r, "/bin/sh", "-c", script)
	want := "CapInh:0000000000000000 CapPrm:0000000000000000 CapEff:0000000000000000 CapBnd:0000000000000000 CapAmb:0000000000000000 NoNewPrivs:1 Seccomp:0 "
	if code != 0 || out != want {
		t.Errorf("confined: status %d, %q (stderr %q), want %q", code, out, errs, want)
	}
	free, _, _ := runArgv(t, []string{"/bin/sh", "-c", script})
	t.Logf("unconfined: %s", free)
	if r.RestrictNet = true; Probe().Net {
		out, _, _ := run(t, r, "/bin/sh", "-c", script)
		if !strings.Contains(out, "Seccomp:2") {
			t.Errorf("network restricted: %q, want the socket filter (Seccomp:2)", out)
		}
	}
}

func TestConnectOutsideConnectTCPRefusedByTheOS(t *testing.T) {
	needNet(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	allowedAddr, allowedPort := listen(t)
	deniedAddr, _ := listen(t)
	r := Rules{RestrictNet: true, ConnectTCP: []uint16{allowedPort}}

	// Unconfined, both connect.
	if _, errs, code := runArgv(t, []string{self, dialHelper, deniedAddr}); code != 0 {
		t.Fatalf("unconfined dial %s: status %d, %s", deniedAddr, code, errs)
	}
	if _, errs, code := run(t, r, self, dialHelper, deniedAddr); code != exitDenied {
		t.Errorf("confined dial of %s (outside ConnectTCP): status %d, stderr %q, want the OS's EACCES", deniedAddr, code, errs)
	}
	if _, errs, code := run(t, r, self, dialHelper, allowedAddr); code != 0 {
		t.Errorf("confined dial of %s (in ConnectTCP): status %d, stderr %q", allowedAddr, code, errs)
	}
	// With the filesystem restricted too the program needs its binary.
	if s := Probe(); s.FS {
		fsr := r
		fsr.RestrictFS = true
		fsr.ReadOnly = append(slices.Clone(systemRoots), self)
		if _, errs, code := run(t, fsr, self, dialHelper, allowedAddr); code != 0 {
			t.Errorf("confined (fs and net) dial of %s: status %d, stderr %q", allowedAddr, code, errs)
		}
		if _, errs, code := run(t, fsr, self, dialHelper, deniedAddr); code != exitDenied {
			t.Errorf("confined (fs and net) dial of %s: status %d, stderr %q", deniedAddr, code, errs)
		}
	}
}

func TestBindOutsideBindTCPRefusedByTheOS(t *testing.T) {
	needNet(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Two ports free a moment ago (the kernel hands out ephemeral ports
	// in turn, so neither is likely to be taken again at once).
	var ports []uint16
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, uint16(l.Addr().(*net.TCPAddr).Port))
		l.Close()
	}
	r := Rules{RestrictNet: true, BindTCP: ports[:1]}
	allowed, denied := strconv.Itoa(int(ports[0])), strconv.Itoa(int(ports[1]))
	if _, errs, code := run(t, r, self, listenHelper, denied); code != exitDenied {
		t.Errorf("confined bind of port %s (outside BindTCP): status %d, stderr %q, want the OS's EACCES", denied, code, errs)
	}
	if _, errs, code := run(t, r, self, listenHelper, allowed); code != 0 {
		t.Errorf("confined bind of port %s (in BindTCP): status %d, stderr %q", allowed, code, errs)
	}
	// Bind restricted, nothing granted: not even an ephemeral port.
	if _, errs, code := run(t, Rules{RestrictNet: true}, self, listenHelper, "0"); code != exitDenied {
		t.Errorf("confined bind of port 0 with no BindTCP: status %d, stderr %q", code, errs)
	}
}

// TestPassThrough: the confined program is the child the caller started,
// with its process group, working directory, environment and streams.
func TestPassThrough(t *testing.T) {
	needFS(t)
	dir := t.TempDir()
	r := Rules{RestrictFS: true, ReadOnly: append(slices.Clone(systemRoots), "/proc", dir)}
	cmd := exec.Command("/bin/sh", "-c", `echo "$$ $(cut -d' ' -f5 /proc/$$/stat)"; pwd; echo "$SHOAL_X"; cat; echo err >&2`)
	cmd.Dir = dir
	cmd.Env = []string{"SHOAL_X=value with spaces", "GODEBUG=inittrace=1"}
	cmd.Stdin = strings.NewReader("from stdin\n")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, errs, code := runConfined(t, r, cmd)
	if code != 0 {
		t.Fatalf("status %d: %s", code, errs)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	want := pid + " " + pid + "\n" + dir + "\nvalue with spaces\nfrom stdin\n"
	if out != want {
		t.Errorf("stdout %q, want %q (same pid and process group, cwd, env, stdin)", out, want)
	}
	if errs != "err\n" {
		t.Errorf("stderr %q", errs)
	}
}

func TestNetProgramAssembles(t *testing.T) {
	p, err := netProgram()
	if err != nil {
		t.Fatal(err)
	}
	if len(p) == 0 || len(p) > 4096 {
		t.Fatalf("%d instructions", len(p))
	}
	if last := p[len(p)-1]; last.Code != unix.BPF_RET|unix.BPF_K {
		t.Errorf("the program does not end in a return: %+v", last)
	}
	b := &bpf{labels: map[string]int{}}
	b.label("back")
	b.jump(jeq, 0, "back", "")
	if _, err := b.assemble(); err == nil {
		t.Errorf("a backward jump assembled")
	}
}

// TestSignalsScopedToTheSandbox: from ABI 6 a confined program cannot
// signal a process outside its domain (here the test itself), but can
// signal its own children.
func TestSignalsScopedToTheSandbox(t *testing.T) {
	needFS(t)
	if s := Probe(); s.ABI < abiIPC {
		t.Skipf("Landlock ABI %d has no signal scoping (needs %d)", s.ABI, abiIPC)
	}
	r := Rules{RestrictFS: true, ReadOnly: systemRoots}
	outside := "kill -0 " + strconv.Itoa(os.Getpid())
	if _, errs, code := runArgv(t, []string{"/bin/sh", "-c", outside}); code != 0 {
		t.Fatalf("unconfined %s: status %d, %s", outside, code, errs)
	}
	if _, errs, code := run(t, r, "/bin/sh", "-c", outside); code == 0 || !strings.Contains(errs, "not permitted") {
		t.Errorf("confined %s: status %d, stderr %q; want a refusal", outside, code, errs)
	}
	if out, errs, code := run(t, r, "/bin/sh", "-c", "sleep 30 & kill $!; wait $!; echo $?"); code != 0 || out != "143\n" {
		t.Errorf("confined kill of its own child: status %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestCannotLeaveItsCgroup: a confined program cannot write cgroup.procs
// (no capabilities, no write right there), so it cannot move itself out
// of the cgroup containment put it in.
func TestCannotLeaveItsCgroup(t *testing.T) {
	needFS(t)
	var procs string
	for _, p := range []string{"/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/unified/cgroup.procs", "/sys/fs/cgroup/pids/cgroup.procs", "/sys/fs/cgroup/freezer/cgroup.procs"} {
		if _, err := os.Stat(p); err == nil {
			procs = p
			break
		}
	}
	if procs == "" {
		t.Skip("no cgroup hierarchy mounted under /sys/fs/cgroup")
	}
	r := Rules{RestrictFS: true, ReadOnly: append(slices.Clone(systemRoots), "/sys")}
	if _, errs, code := run(t, r, "/bin/sh", "-c", "echo $$ > "+procs); code == 0 || !strings.Contains(errs, "Permission denied") {
		t.Errorf("confined write of %s: status %d, stderr %q; want a refusal", procs, code, errs)
	}
}
