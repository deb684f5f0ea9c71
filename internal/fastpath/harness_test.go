package fastpath

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/diewithparent"
)

// floorEnv, when set, makes the test binary the floor server instead of
// running tests: it serves the socket named by its value (see serveFloor).
const floorEnv = "SHOAL_FASTPATH_FLOOR"

func TestMain(m *testing.M) {
	if sock := os.Getenv(floorEnv); sock != "" {
		os.Exit(floorMain(sock))
	}
	code := m.Run()
	if bins.dir != "" {
		os.RemoveAll(bins.dir)
	}
	os.Exit(code)
}

// bins holds the binaries built for the benchmarks, once per test binary
// and only when a benchmark asks for one.
var bins struct {
	once sync.Once
	dir  string
	err  error
}

// bin returns the path of cmd/<name> built as shipped (CGO_ENABLED=0),
// building shoal-kernel and shoal together the first time.
func bin(tb testing.TB, name string) string {
	tb.Helper()
	bins.once.Do(func() {
		bins.dir, bins.err = os.MkdirTemp("", "fastpath-bin")
		if bins.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", bins.dir+"/", "github.com/shoalgo/shoal/cmd/shoal-kernel", "github.com/shoalgo/shoal/cmd/shoal")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			bins.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if bins.err != nil {
		tb.Fatal(bins.err)
	}
	return filepath.Join(bins.dir, name)
}

// shortDir is a fresh directory with a short path (a socket path must stay
// under ~100 bytes, which t.TempDir does not promise).
func shortDir(tb testing.TB) string {
	tb.Helper()
	d, err := os.MkdirTemp("", "fp")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// kernel is a running shoal-kernel process.
type kernel struct {
	sock, dir, state string
	pid              int
}

// startKernel starts the shoal-kernel binary as shipped on a temp socket
// with its own working directory and state directory (so the journal is
// on). When state is not "" it is an existing state directory to use. The
// kernel is stopped (SIGTERM, then SIGKILL) when tb ends.
func startKernel(tb testing.TB, state string, flags ...string) *kernel {
	tb.Helper()
	base := shortDir(tb)
	k := &kernel{sock: filepath.Join(base, "k.sock"), dir: filepath.Join(base, "work"), state: state}
	if k.state == "" {
		k.state = filepath.Join(base, "state")
		if err := os.Mkdir(k.state, 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Mkdir(k.dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	args := append([]string{"--socket", k.sock, "--state-dir", k.state}, flags...)
	cmd := exec.Command(bin(tb, "shoal-kernel"), args...)
	cmd.Dir = k.dir
	cmd.SysProcAttr = diewithparent.Attr() // dies with the test binary
	cmd.Env = []string{"HOME=" + base, "PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + base, "XDG_RUNTIME_DIR=" + base,
		"XDG_STATE_HOME=" + filepath.Join(base, "xdgstate"), "SHOAL_TOKEN_STORE=" + filepath.Join(k.state, "tokens.json")}
	startReady(tb, cmd, "shoal-kernel: ready ")
	k.pid = cmd.Process.Pid
	return k
}

// startFloor starts the floor server, this test binary re-run as a bare
// Go JSON-RPC server (serveFloor), in a process of its own as the kernel
// is, and returns its socket.
func startFloor(tb testing.TB) string {
	tb.Helper()
	sock := filepath.Join(shortDir(tb), "floor.sock")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), floorEnv+"="+sock)
	startReady(tb, cmd, "floor: ready")
	return sock
}

// startReady starts cmd, waits for a stderr line starting with ready, and
// stops the process (SIGTERM, then SIGKILL after 10 s) when tb ends.
func startReady(tb testing.TB, cmd *exec.Cmd, ready string) {
	tb.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	pw.Close()
	readyc := make(chan struct{})
	var mu sync.Mutex
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			mu.Lock()
			if log.Len() < 64<<10 {
				log.WriteString(sc.Text() + "\n")
			}
			mu.Unlock()
			if !sent && strings.HasPrefix(sc.Text(), ready) {
				close(readyc)
				sent = true
			}
		}
	}()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	tb.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	select {
	case <-readyc:
	case <-exited:
		mu.Lock()
		defer mu.Unlock()
		tb.Fatalf("%s exited before it was ready:\n%s", cmd.Path, log.String())
	case <-time.After(30 * time.Second):
		tb.Fatalf("%s not ready after 30 s", cmd.Path)
	}
}

// floorMain serves the floor on sock until SIGTERM or SIGINT.
func floorMain(sock string) int {
	l, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() { <-sig; l.Close() }()
	fmt.Fprintln(os.Stderr, "floor: ready", sock)
	for {
		nc, err := l.Accept()
		if err != nil {
			return 0
		}
		go serveFloor(nc)
	}
}

// floorRequest and floorAnswer are what the floor reads and writes.
type floorRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type floorAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  floorResult     `json:"result"`
}

type floorResult struct {
	Value json.RawMessage `json:"value"`
}

var floorValue = json.RawMessage(`{"$":"int","v":2}`)

// serveFloor is the floor of a JSON-RPC round trip: what any Go server on
// a Unix socket does at least. It reads newline-delimited requests one at
// a time, decodes each with encoding/json and answers every one, whatever
// its method, with a trivial result (an exec-shaped int 2) encoded with
// encoding/json.
func serveFloor(nc net.Conn) {
	defer nc.Close()
	r := bufio.NewReaderSize(nc, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		var req floorRequest
		if err := json.Unmarshal(line, &req); err != nil {
			return
		}
		out, err := json.Marshal(floorAnswer{JSONRPC: "2.0", ID: req.ID, Result: floorResult{Value: floorValue}})
		if err != nil {
			return
		}
		if _, err := nc.Write(append(out, '\n')); err != nil {
			return
		}
	}
}

// rpcConn is a raw JSON-RPC client on one connection, one request at a
// time, allocating nothing per call once warm.
type rpcConn struct {
	nc   net.Conn
	r    *bufio.Reader
	buf  []byte
	head []byte
	id   int
}

// dial connects to sock and, when session is not "", attaches to it.
func dial(tb testing.TB, sock, session string) *rpcConn {
	tb.Helper()
	nc, err := net.Dial("unix", sock)
	if err != nil {
		tb.Fatal(err)
	}
	c := &rpcConn{nc: nc, r: bufio.NewReaderSize(nc, 256<<10)}
	tb.Cleanup(func() { nc.Close() })
	if session != "" {
		if _, err := c.call("session.attach", []byte(`{"session":`+strconv.Quote(session)+`}`)); err != nil {
			tb.Fatalf("attach %s: %v", session, err)
		}
	}
	return c
}

// call writes one request and returns its answer line (valid until the
// next call), checking only that it is a result for this request's id;
// a line that is not is decoded for the error it carries.
func (c *rpcConn) call(method string, params []byte) ([]byte, error) {
	c.id++
	b := append(c.buf[:0], `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(c.id), 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":`...)
	b = append(b, params...)
	b = append(b, "}\n"...)
	c.buf = b
	if _, err := c.nc.Write(b); err != nil {
		return nil, fmt.Errorf("write: %w", err)
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	h := append(c.head[:0], `{"jsonrpc":"2.0","id":`...)
	h = strconv.AppendInt(h, int64(c.id), 10)
	h = append(h, `,"result":`...)
	c.head = h
	if !bytes.HasPrefix(line, h) {
		return nil, fmt.Errorf("%s: not a result for id %d: %.300s", method, c.id, line)
	}
	return line, nil
}

// exec runs src and checks the answer is a success.
func (c *rpcConn) exec(params []byte) error {
	line, err := c.call("exec", params)
	if err != nil {
		return err
	}
	if bytes.Contains(line, []byte(`"ok":false`)) {
		return fmt.Errorf("exec failed: %.300s", line)
	}
	return nil
}

func execParams(src string) []byte { return []byte(`{"src":` + strconv.Quote(src) + `}`) }

// warm runs each of fns n times untimed, so that first-use costs (a
// session's first exec, the page cache, connection buffers growing) are
// not in the percentiles.
func warm(b *testing.B, n int, fns ...func() error) {
	b.Helper()
	for range n {
		for _, f := range fns {
			if err := f(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// slow skips a benchmark under -short: every one here builds the
// binaries or starts processes for seconds before its first iteration.
func slow(b *testing.B) {
	if testing.Short() {
		b.Skip("slow: builds and starts the shipped binaries")
	}
}

// lookTrue is /bin/true's real path.
func lookTrue(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("true")
	if err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		tb.Skipf("true not available: %v", err)
	}
	return p
}

// cpu is the kernel process's user and system CPU time so far, from
// /proc/<pid>/stat (clock ticks of 10 ms: read it over a run of seconds).
func (k *kernel) cpu(tb testing.TB) time.Duration {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", k.pid))
	if err != nil {
		tb.Fatal(err)
	}
	// The fields after the command name, which is in parentheses and
	// may hold spaces: state is field 3, utime 14, stime 15.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		tb.Fatalf("short /proc/%d/stat: %q", k.pid, b)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		tb.Fatalf("/proc/%d/stat: %q", k.pid, b)
	}
	return time.Duration(ut+st) * time.Second / 100
}
