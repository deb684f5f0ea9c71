//go:build linux

package hostile

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/diewithparent"
	"github.com/shoalgo/shoal/proto"
)

// binDir holds the binaries built once for this test binary.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "hostile-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"shoal-kernel", "shoal-token"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), "github.com/shoalgo/shoal/cmd/"+name)
		// Pure Go, as shipped: a cgo build links glibc, whose per-thread
		// malloc arenas reserve 64 MiB of address space each and would
		// make the RLIMIT_AS caps measure libc rather than the kernel.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "hostile: building %s: %v\n", name, err)
			return 1
		}
	}
	binDir = dir
	return m.Run()
}

// Bin returns the path of a binary built for these tests (shoal-kernel,
// shoal-token).
func Bin(name string) string { return filepath.Join(binDir, name) }

// DefaultMemCap is the address-space cap a kernel gets when Options.MemCap
// is zero.
const DefaultMemCap = 4 << 30

// HeartbeatMax is the longest an owner's `exec "1 + 1"` may take during an
// attack.
const HeartbeatMax = 5 * time.Second

// Options configures Start.
type Options struct {
	Flags  []string // extra shoal-kernel flags
	MemCap int64    // RLIMIT_AS of the kernel process; 0 means DefaultMemCap
	Env    []string // extra environment (KEY=VALUE)
	// StateDir, when set, is an existing state directory to reuse (a
	// restart on another kernel's journal and tokens); "" makes a new one.
	StateDir string
	// Inherit are descriptors the kernel inherits from its starter, as
	// fds 3, 4, … without close-on-exec (exec.Cmd.ExtraFiles).
	Inherit []*os.File
}

// Kernel is a running shoal-kernel process.
type Kernel struct {
	Sock, Dir, StateDir, Store string
	Cmd                        *exec.Cmd
	Pid                        int

	stderr   *lockedBuffer
	exited   chan struct{}
	stopping bool // set by Stop and by tests that end the kernel themselves
	waitMu   sync.Mutex
	state    *os.ProcessState
}

// Start builds nothing (TestMain did) and starts shoal-kernel on a temp
// socket with its own state and working directories, capped at
// opts.MemCap bytes of address space. It waits for the ready line and
// stops the kernel (SIGTERM, then SIGKILL) at cleanup.
func Start(t testing.TB, opts Options) *Kernel {
	t.Helper()
	base, err := os.MkdirTemp("", "hk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	k := &Kernel{
		Sock:     filepath.Join(base, "k.sock"),
		Dir:      filepath.Join(base, "work"),
		StateDir: filepath.Join(base, "state"),
		stderr:   &lockedBuffer{},
		exited:   make(chan struct{}),
	}
	if opts.StateDir != "" {
		k.StateDir = opts.StateDir
	} else if err := os.Mkdir(k.StateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	k.Store = filepath.Join(k.StateDir, "tokens.json")
	if err := os.Mkdir(k.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--socket", k.Sock, "--state-dir", k.StateDir}, opts.Flags...)
	if os.Getuid() != 0 {
		// The tests read the kernel's /proc/<pid>/fd (openFDs); without
		// CAP_SYS_PTRACE only a dumpable kernel lets them.
		args = append(args, "--debuggable")
	}
	limit := uint64(opts.MemCap)
	if limit == 0 {
		limit = DefaultMemCap
	}
	// util-linux's prlimit sets the cap and execs the kernel in place (the
	// pid stays the kernel's), so the kernel reads its cap at start and
	// derives its memory budgets from it. Without the tool the cap is set
	// right after the fork (below), which the kernel may read too late.
	cmd := exec.Command(Bin("shoal-kernel"), args...)
	if pl, err := exec.LookPath("prlimit"); err == nil {
		cmd = exec.Command(pl, append([]string{fmt.Sprintf("--as=%d:%d", limit, limit), "--", Bin("shoal-kernel")}, args...)...)
	}
	cmd.Dir = k.Dir
	// The kernel dies with this test binary (a test that times out must not
	// leave a kernel running); prlimit execs in place, so it carries over.
	cmd.SysProcAttr = diewithparent.Attr()
	cmd.Env = append([]string{"HOME=" + base, "PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + base,
		"XDG_RUNTIME_DIR=" + base, "SHOAL_TOKEN_STORE=" + k.Store}, opts.Env...)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = pw
	cmd.ExtraFiles = opts.Inherit
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	k.Cmd, k.Pid = cmd, cmd.Process.Pid
	// The kernel allocates little before it is listening, so capping it
	// right after the fork bounds what it can allocate as well as capping
	// it before exec (prlimit did that already when present).
	if err := unix.Prlimit(k.Pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: limit, Max: limit}, nil); err != nil {
		cmd.Process.Kill()
		t.Fatalf("prlimit: %v", err)
	}
	go func() {
		st, _ := cmd.Process.Wait()
		k.waitMu.Lock()
		k.state = st
		k.waitMu.Unlock()
		close(k.exited)
	}()
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			k.stderr.WriteLine(line)
			if !sent && strings.HasPrefix(line, "shoal-kernel: ready ") {
				ready <- nil
				sent = true
			}
		}
		if !sent {
			ready <- errors.New("kernel stderr closed before the ready line")
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("%v; stderr:\n%s", err, k.stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("kernel not ready after 30 s; stderr:\n%s", k.stderr.String())
	}
	t.Cleanup(func() { k.Stop(t) })
	return k
}

// Stop sends SIGTERM and waits up to 10 s, then SIGKILLs. A kernel that
// died before the test asked it to stop fails the test, with its stderr.
func (k *Kernel) Stop(t testing.TB) {
	t.Helper()
	if k.dead() {
		k.waitMu.Lock()
		st := k.state
		k.waitMu.Unlock()
		if !k.stopping {
			t.Errorf("kernel had died before the test ended: %v; stderr:\n%s", st, deathNote(k.stderr.String()))
		}
		return
	}
	k.stopping = true
	k.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.exited:
	case <-time.After(10 * time.Second):
		k.Cmd.Process.Kill()
		<-k.exited
		t.Errorf("kernel ignored SIGTERM for 10 s")
	}
}

// dead reports whether the kernel has exited, waiting for it to be reaped
// when it is a zombie.
func (k *Kernel) dead() bool {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", k.Pid)); err != nil || zombie(b) {
		select {
		case <-k.exited:
		case <-time.After(2 * time.Second):
		}
	}
	select {
	case <-k.exited:
		return true
	default:
		return false
	}
}

// ExpectExit tells Stop that the test ends the kernel itself (a signal,
// a kill), so an exit before cleanup is no failure.
func (k *Kernel) ExpectExit() { k.stopping = true }

// Exited is closed when the kernel process has exited.
func (k *Kernel) Exited() <-chan struct{} { return k.exited }

// Stderr returns what the kernel has written to stderr so far.
func (k *Kernel) Stderr() string { return k.stderr.String() }

// WaitStderr reports whether the kernel's stderr contains sub within d:
// a log line is written after the answer that follows from it, and reaches
// the harness through a pipe.
func (k *Kernel) WaitStderr(sub string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if strings.Contains(k.stderr.String(), sub) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Alive fails the test if the kernel process has exited or is exiting.
func (k *Kernel) Alive(t testing.TB) {
	t.Helper()
	if k.dead() {
		k.waitMu.Lock()
		st := k.state
		k.waitMu.Unlock()
		k.stopping = true // reported here, not again at cleanup
		t.Fatalf("kernel died: %v; stderr:\n%s", st, deathNote(k.stderr.String()))
	}
}

// zombie reports whether a /proc/PID/stat line is of an exited process.
func zombie(stat []byte) bool {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z' || s[i+2] == 'X'
}

// PeakRSS returns the kernel's peak resident set size (VmHWM) in bytes.
func (k *Kernel) PeakRSS(t testing.TB) int64 {
	t.Helper()
	k.Alive(t)
	return statusField(t, k.Pid, "VmHWM")
}

// RSS returns the kernel's current resident set size (VmRSS) in bytes.
func (k *Kernel) RSS(t testing.TB) int64 {
	t.Helper()
	return statusField(t, k.Pid, "VmRSS")
}

// WantRSSUnder fails the test when the kernel's peak RSS passes limit.
func (k *Kernel) WantRSSUnder(t testing.TB, limit int64) {
	t.Helper()
	if got := k.PeakRSS(t); got > limit {
		t.Errorf("kernel peak RSS %d MiB, want under %d MiB", got>>20, limit>>20)
	} else {
		t.Logf("kernel peak RSS %d MiB (bound %d MiB)", got>>20, limit>>20)
	}
}

func statusField(t testing.TB, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading kernel status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				n, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return n << 10 // kB
				}
			}
		}
	}
	t.Fatalf("no %s in /proc/%d/status (the kernel is exiting?)", field, pid)
	return 0
}

// Ctx returns a context that ends with the test (at most 2 minutes).
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// Client dials the kernel; the client is closed at cleanup.
func (k *Kernel) Client(t testing.TB) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, k.Sock)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Attach dials and attaches to session, with a bearer token when token is
// not empty.
func (k *Kernel) Attach(t testing.TB, session, token string) *client.Client {
	t.Helper()
	c := k.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Attach(ctx, client.AttachParams{Session: session, Token: token}); err != nil {
		t.Fatalf("attach %q: %v", session, err)
	}
	return c
}

// Owner attaches as the kernel owner to the session "owner".
func (k *Kernel) Owner(t testing.TB) *client.Client {
	t.Helper()
	return k.Attach(t, "owner", "")
}

// Token creates a bearer token for a non-owner principal (profile
// "agent") and returns its secret.
func (k *Kernel) Token(t testing.TB, principal string) string {
	t.Helper()
	_, secret, err := auth.Open(k.Store).Create(principal, "agent", nil, 0)
	if err != nil {
		t.Fatalf("token for %s: %v", principal, err)
	}
	return secret
}

// Dial opens a raw connection to the socket, closed at cleanup.
func (k *Kernel) Dial(t testing.TB) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("unix", k.Sock, 10*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Heartbeat is an owner connection running `exec "1 + 1"` in a loop.
type Heartbeat struct {
	k      *Kernel
	stop   chan struct{}
	done   chan struct{}
	bound  time.Duration // a beat slower than this fails; 0: none (Pulse)
	mu     sync.Mutex
	lat    []time.Duration
	errs   []string
	maxLat time.Duration
}

// Heartbeat starts an owner connection (session "heartbeat") that runs
// `exec "1 + 1"` at once and then every 20 ms until Stop, so even an
// attack shorter than 20 ms has a heartbeat beside it. A beat that takes
// longer than HeartbeatMax fails the test at Stop.
func (k *Kernel) Heartbeat(t testing.TB) *Heartbeat {
	t.Helper()
	return k.heartbeat(t, HeartbeatMax)
}

// Pulse is Heartbeat without a bound on a beat's latency: Stop fails the
// test only for a beat that failed or answered wrong (or for none at
// all), and the caller judges the latencies Stop returns, or counts the
// beats answered (Answered) while an attack holds. A beat still waits at
// most PulseHang, a bound on a hung kernel, not on a slow machine.
func (k *Kernel) Pulse(t testing.TB) *Heartbeat {
	t.Helper()
	return k.heartbeat(t, 0)
}

// PulseHang is how long a Pulse beat waits for its answer before it
// counts as failed: the kernel stopped serving the owner, which no load
// on a test machine explains.
const PulseHang = 2 * time.Minute

// Answered is how many beats have had their answer so far.
func (h *Heartbeat) Answered() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.lat)
}

func (k *Kernel) heartbeat(t testing.TB, bound time.Duration) *Heartbeat {
	t.Helper()
	c := k.Attach(t, "heartbeat", "")
	h := &Heartbeat{k: k, stop: make(chan struct{}), done: make(chan struct{}), bound: bound}
	wait := PulseHang
	if bound > 0 {
		wait = 2 * bound
	}
	go func() {
		defer close(h.done)
		for first := true; ; first = false {
			if !first {
				select {
				case <-h.stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			start := time.Now()
			res, err := c.Exec(ctx, client.ExecParams{Src: "1 + 1"})
			d := time.Since(start)
			cancel()
			h.mu.Lock()
			h.lat = append(h.lat, d)
			if d > h.maxLat {
				h.maxLat = d
			}
			switch {
			case err != nil:
				h.errs = append(h.errs, err.Error())
			case h.bound > 0 && d > h.bound:
				h.errs = append(h.errs, fmt.Sprintf("exec took %v", d))
			default:
				if got := strings.ReplaceAll(string(res.Value), " ", ""); got != `{"$":"int","v":2}` {
					h.errs = append(h.errs, "exec answered "+got)
				}
			}
			h.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		select {
		case <-h.stop:
		default:
			close(h.stop)
		}
		<-h.done
	})
	return h
}

// Stop ends the loop and fails the test if any heartbeat failed or took
// longer than HeartbeatMax (not for a Pulse), or if none ran. It returns
// the latencies.
func (h *Heartbeat) Stop(t testing.TB) []time.Duration {
	t.Helper()
	select {
	case <-h.stop:
	default:
		close(h.stop)
	}
	<-h.done
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.errs) > 0 {
		n := len(h.errs)
		t.Errorf("%d of %d owner heartbeats failed; first: %s", n, len(h.lat), h.errs[0])
	}
	if len(h.lat) == 0 {
		t.Errorf("no owner heartbeat ran")
	}
	if len(h.lat) > 0 {
		t.Logf("owner heartbeats: %d, p50 %v, p99 %v, max %v", len(h.lat), Percentile(h.lat, 50), Percentile(h.lat, 99), h.maxLat)
	}
	return append([]time.Duration(nil), h.lat...)
}

// Percentile returns the p-th percentile (0..100) of ds.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}

// WantCode fails the test unless err carries the JSON-RPC error code.
func WantCode(t testing.TB, err error, code int) {
	t.Helper()
	got, ok := client.ErrorCode(err)
	if !ok {
		t.Fatalf("want JSON-RPC error %d, got %v", code, err)
	}
	if got != code {
		t.Fatalf("want JSON-RPC error %d, got %d: %v", code, got, err)
	}
}

// WantLangCode fails the test unless err is a RAISED (-32002) error whose
// language error code is code. It returns the error's message.
func WantLangCode(t testing.TB, err error, code string) string {
	t.Helper()
	WantCode(t, err, proto.CodeRaised)
	var data struct {
		Code string `json:"code"`
	}
	if derr := client.ErrorData(err, &data); derr != nil {
		t.Fatalf("error data: %v", derr)
	}
	if data.Code != code {
		t.Fatalf("want language error %q, got %q: %v", code, data.Code, err)
	}
	return err.Error()
}

// SendFrame writes one raw line (a newline is added) on c.
func SendFrame(t testing.TB, c net.Conn, frame string) {
	t.Helper()
	c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write([]byte(frame + "\n")); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// ReadFrame reads one answer line from r within d and decodes it.
func ReadFrame(t testing.TB, c net.Conn, r *bufio.Reader, d time.Duration) map[string]json.RawMessage {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	line, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("answer is not JSON: %v: %.200q", err, line)
	}
	return m
}

// lockedBuffer collects lines concurrently.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) WriteLine(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 1<<20 {
		l.b.WriteString(s)
		l.b.WriteByte('\n')
	}
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// deathNote picks the part of a dead kernel's stderr that says why: from
// the first fatal error or panic line, the next 2,000 bytes.
func deathNote(s string) string {
	for _, m := range []string{"fatal error:", "panic:", "runtime: "} {
		if i := strings.Index(s, m); i >= 0 {
			return tail(s[:min(len(s), i+2000)], 2000)
		}
	}
	return tail(s, 2000)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
