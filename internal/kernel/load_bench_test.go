package kernel

// Load measurement: many clients each making sequential `exec "1 + 1"`
// round trips against a real kernel on a Unix socket, beside the same load
// against a bare JSON echo server on the same machine in the same run (the
// floor). The kernel's p50 is compared to the floor's.
//
//	go test -run '^$' -bench KernelLoad -benchtime 1x ./internal/kernel/
//	SHOAL_LOAD=1 go test -run TestLoadExec -v ./internal/kernel/

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	shoalclient "github.com/shoalgo/shoal/client"
)

const (
	loadClients   = 32
	loadPerClient = 1000
	loadSrc       = "1 + 1"
	// loadDeadline bounds a whole run, so a wedged server fails the run
	// instead of hanging it.
	loadDeadline = 2 * time.Minute
)

// loadResult is the outcome of one load run.
type loadResult struct {
	name     string
	requests int
	elapsed  time.Duration
	lat      []time.Duration // sorted ascending
}

func (r *loadResult) rps() float64 { return float64(r.requests) / r.elapsed.Seconds() }

// quantile is the nearest-rank q-quantile of the latencies.
func (r *loadResult) quantile(q float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	i := int(q*float64(len(r.lat))+0.5) - 1
	return r.lat[min(max(i, 0), len(r.lat)-1)]
}

func (r *loadResult) String() string {
	return fmt.Sprintf("%s: %d req in %v, %.0f req/s, p50 %v, p99 %v",
		r.name, r.requests, r.elapsed.Round(time.Millisecond), r.rps(),
		r.quantile(0.50).Round(100*time.Nanosecond), r.quantile(0.99).Round(100*time.Nanosecond))
}

// loadConn is one client connection of a load run.
type loadConn interface {
	// roundTrip sends request number id and checks its answer.
	roundTrip(id int) error
	Close() error
}

// runLoad opens clients connections, then releases them together, each
// making perClient sequential round trips, and times every round trip.
func runLoad(name string, clients, perClient int, open func(i int) (loadConn, error)) (*loadResult, error) {
	conns := make([]loadConn, 0, clients)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range clients {
		c, err := open(i)
		if err != nil {
			return nil, fmt.Errorf("%s: opening client %d: %w", name, i, err)
		}
		conns = append(conns, c)
	}
	lat := make([]time.Duration, clients*perClient)
	errs := make([]error, clients)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			mine := lat[i*perClient : (i+1)*perClient]
			<-start
			for j := range mine {
				t0 := time.Now()
				if err := c.roundTrip(j + 2); err != nil { // id 1 was the attach
					errs[i] = fmt.Errorf("%s: client %d request %d: %w", name, i, j, err)
					return
				}
				mine[j] = time.Since(t0)
			}
		})
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	elapsed := time.Since(t0)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.Sort(lat)
	return &loadResult{name: name, requests: len(lat), elapsed: elapsed, lat: lat}, nil
}

// loadResponse is the part of an exec answer a load client checks.
type loadResponse struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		Value json.RawMessage `json:"value"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// wantTwo is the wire value of `1 + 1`.
var wantTwo = []byte(`{"$":"int","v":2}`)

// checkTwo checks that raw is the wire value int 2.
func checkTwo(raw json.RawMessage) error {
	var w struct {
		T string          `json:"$"`
		V json.RawMessage `json:"v"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return fmt.Errorf("value %s: %w", raw, err)
	}
	if w.T != "int" || string(w.V) != "2" {
		return fmt.Errorf("value %s, want %s", raw, wantTwo)
	}
	return nil
}

// rawLoadConn speaks JSON lines over a net.Conn, one request at a time.
type rawLoadConn struct {
	nc  net.Conn
	r   *bufio.Reader
	buf []byte
}

// dialRaw connects to path and attaches to session.
func dialRaw(path, session string) (*rawLoadConn, error) {
	nc, err := net.Dial("unix", path)
	if err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Now().Add(loadDeadline))
	c := &rawLoadConn{nc: nc, r: bufio.NewReaderSize(nc, 64<<10), buf: make([]byte, 0, 256)}
	params, err := json.Marshal(map[string]string{"session": session})
	if err != nil {
		nc.Close()
		return nil, err
	}
	resp, err := c.call(1, "session.attach", params)
	if err == nil && resp.Error != nil {
		err = fmt.Errorf("attach: error %d %s", resp.Error.Code, resp.Error.Message)
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

var execParamsJSON = []byte(`{"src":` + strconv.Quote(loadSrc) + `}`)

// call writes one request line and reads and decodes one answer line,
// checking that it carries the request's id.
func (c *rawLoadConn) call(id int, method string, params []byte) (*loadResponse, error) {
	line, err := c.exchange(id, method, params)
	if err != nil {
		return nil, err
	}
	var resp loadResponse
	if err := json.Unmarshal(line, &resp); err != nil {
		return nil, fmt.Errorf("bad frame %q: %w", line, err)
	}
	if string(resp.ID) != strconv.Itoa(id) {
		return nil, fmt.Errorf("answer id %s, want %d", resp.ID, id)
	}
	return &resp, nil
}

// exchange writes one request line and returns the answer line, valid
// until the next read.
func (c *rawLoadConn) exchange(id int, method string, params []byte) ([]byte, error) {
	b := append(c.buf[:0], `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
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
	return line, nil
}

func (c *rawLoadConn) roundTrip(id int) error {
	resp, err := c.call(id, "exec", execParamsJSON)
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return fmt.Errorf("exec: error %d %s", resp.Error.Code, resp.Error.Message)
	}
	if resp.Result == nil {
		return errors.New("exec: answer has neither result nor error")
	}
	return checkTwo(resp.Result.Value)
}

func (c *rawLoadConn) Close() error { return c.nc.Close() }

// libLoadConn drives the kernel through the client package.
type libLoadConn struct {
	c   *shoalclient.Client
	ctx context.Context
}

func dialLib(ctx context.Context, path, session string) (*libLoadConn, error) {
	c, err := shoalclient.Dial(ctx, path)
	if err != nil {
		return nil, err
	}
	if _, err := c.Attach(ctx, shoalclient.AttachParams{Session: session}); err != nil {
		c.Close()
		return nil, err
	}
	return &libLoadConn{c: c, ctx: ctx}, nil
}

func (c *libLoadConn) roundTrip(int) error {
	res, err := c.c.Exec(c.ctx, shoalclient.ExecParams{Src: loadSrc})
	if err != nil {
		return err
	}
	return checkTwo(res.Value)
}

func (c *libLoadConn) Close() error { return c.c.Close() }

// loadKernel starts a kernel on a short temp socket path and returns the
// path; the kernel is shut down when tb ends.
func loadKernel(tb testing.TB) string {
	tb.Helper()
	base := loadTempDir(tb)
	dir := filepath.Join(base, "work")
	if err := os.Mkdir(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	sock := filepath.Join(base, "k.sock")
	l, err := Listen(sock, true)
	if err != nil {
		tb.Fatal(err)
	}
	// Each benchmark iteration attaches fresh sessions (its own prefix),
	// so b.N iterations would pass the owner's session bound: lift it.
	lim := DefaultLimits()
	lim.OwnerSessions = 1 << 20
	srv, err := New(Config{Version: "load", Dir: dir, Env: []string{"HOME=" + base, "PATH=/usr/bin:/bin"}, Limits: &lim})
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			tb.Errorf("shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			tb.Errorf("Serve returned %v", err)
		}
	})
	return sock
}

// loadTempDir is a fresh directory with a short path (socket paths must
// stay under ~100 bytes, which t.TempDir does not promise).
func loadTempDir(tb testing.TB) string {
	tb.Helper()
	d, err := os.MkdirTemp("", "sl")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// startEchoFloor starts the floor: a bare Unix-socket JSON echo server, a
// goroutine per connection that reads a line, decodes it into a map and
// answers an exec-shaped result with the same id. It returns the socket
// path; the server stops when tb ends.
func startEchoFloor(tb testing.TB) string {
	return startJSONFloor(tb, "echo.sock", 4096, func(map[string]any) any {
		return map[string]any{
			"ref":    "out:1",
			"value":  map[string]any{"$": "int", "v": 2},
			"render": "2",
		}
	})
}

// startJSONFloor starts a bare Unix-socket JSON-RPC server for a
// benchmark's floor: a goroutine per connection reads a line (through a
// reader of bufSize bytes), decodes it with encoding/json into a map and
// answers result(request) with the request's id; a nil result closes the
// connection. It returns the socket path; the server stops when tb ends.
func startJSONFloor(tb testing.TB, name string, bufSize int, result func(req map[string]any) any) string {
	tb.Helper()
	sock := filepath.Join(loadTempDir(tb), name)
	l, err := net.Listen("unix", sock)
	if err != nil {
		tb.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, nc)
			mu.Unlock()
			wg.Go(func() { serveJSONFloor(nc, bufSize, result) })
		}
	})
	tb.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return sock
}

func serveJSONFloor(nc net.Conn, bufSize int, result func(map[string]any) any) {
	defer nc.Close()
	r := bufio.NewReaderSize(nc, bufSize)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		var req map[string]any
		if err := json.Unmarshal(line, &req); err != nil {
			return
		}
		res := result(req)
		if res == nil {
			return
		}
		out, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": res})
		if err != nil {
			return
		}
		if _, err := nc.Write(append(out, '\n')); err != nil {
			return
		}
	}
}

// loadFigures is one complete measurement: the floor and the kernel driven
// three ways.
type loadFigures struct {
	floor  *loadResult // bare JSON echo, raw clients
	kernel *loadResult // kernel, raw clients, one session per client
	lib    *loadResult // kernel, client package, one session per client
	shared *loadResult // kernel, raw clients, all in one session

	// One client alone: the unloaded round trip, without queueing.
	floorSolo, kernelSolo *loadResult
}

// all lists the runs in reporting order.
func (f *loadFigures) all() []*loadResult {
	return []*loadResult{f.floor, f.kernel, f.lib, f.shared, f.floorSolo, f.kernelSolo}
}

func (f *loadFigures) ratio() float64 {
	return float64(f.kernel.quantile(0.5)) / float64(f.floor.quantile(0.5))
}

func (f *loadFigures) summary() string {
	return fmt.Sprintf("load %d×%d exec %q: kernel %.0f req/s p50 %v p99 %v | floor %.0f req/s p50 %v p99 %v | p50 ratio %.2f× (target ≤ 2×)",
		loadClients, loadPerClient, loadSrc,
		f.kernel.rps(), f.kernel.quantile(0.5), f.kernel.quantile(0.99),
		f.floor.rps(), f.floor.quantile(0.5), f.floor.quantile(0.99), f.ratio())
}

// loadRuns numbers measurements, so each uses fresh sessions.
var loadRuns atomic.Int64

// measureLoad runs the floor and the kernel variants. Every measurement
// attaches to sessions of its own, so none starts with the transcript and
// event rings an earlier one filled.
func measureLoad(floorSock, kernelSock string) (*loadFigures, error) {
	var f loadFigures
	var err error
	run := strconv.FormatInt(loadRuns.Add(1), 10) + "-"
	runtime.GC()
	f.floor, err = runLoad("floor", loadClients, loadPerClient, func(i int) (loadConn, error) {
		return dialRaw(floorSock, "load-"+strconv.Itoa(i))
	})
	if err != nil {
		return nil, err
	}
	runtime.GC()
	f.kernel, err = runLoad("kernel", loadClients, loadPerClient, func(i int) (loadConn, error) {
		return dialRaw(kernelSock, "load-"+run+strconv.Itoa(i))
	})
	if err != nil {
		return nil, err
	}
	runtime.GC()
	ctx, cancel := context.WithTimeout(context.Background(), loadDeadline)
	defer cancel()
	f.lib, err = runLoad("kernel/client-pkg", loadClients, loadPerClient, func(i int) (loadConn, error) {
		return dialLib(ctx, kernelSock, "lib-"+run+strconv.Itoa(i))
	})
	if err != nil {
		return nil, err
	}
	runtime.GC()
	f.shared, err = runLoad("kernel/one-session", loadClients, loadPerClient, func(int) (loadConn, error) {
		return dialRaw(kernelSock, "shared-"+run)
	})
	if err != nil {
		return nil, err
	}
	f.floorSolo, err = runLoad("floor/solo", 1, loadPerClient, func(int) (loadConn, error) {
		return dialRaw(floorSock, "solo")
	})
	if err != nil {
		return nil, err
	}
	f.kernelSolo, err = runLoad("kernel/solo", 1, loadPerClient, func(int) (loadConn, error) {
		return dialRaw(kernelSock, "solo-"+run)
	})
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// TestLoadExec is kernel acceptance criterion 3: 32 concurrent clients ×
// 1,000 exec "1 + 1" all succeed with int 2. It is opt-in (SHOAL_LOAD=1)
// because it takes seconds; set SHOAL_LOAD_STRICT=1 to also fail when the
// kernel's p50 is more than twice the floor's.
func TestLoadExec(t *testing.T) {
	if testing.Short() || os.Getenv("SHOAL_LOAD") != "1" {
		t.Skip("load test: set SHOAL_LOAD=1 (and do not pass -short) to run")
	}
	f, err := measureLoad(startEchoFloor(t), loadKernel(t))
	if err != nil {
		t.Fatal(err)
	}
	// runLoad has already checked that every answer is int 2.
	for _, r := range f.all() {
		if p50, p99 := r.quantile(0.5), r.quantile(0.99); p50 <= 0 || p99 < p50 {
			t.Errorf("%s: implausible latencies p50 %v p99 %v", r.name, p50, p99)
		}
		t.Log(r)
	}
	t.Log(f.summary())
	if os.Getenv("SHOAL_LOAD_STRICT") == "1" && f.ratio() > 2 {
		t.Errorf("kernel p50 is %.2f× the floor's, above the 2× target", f.ratio())
	}
}

// BenchmarkKernelLoad measures the kernel and the floor under the load of
// TestLoadExec; each iteration is one full run of every variant. Metrics
// are from the last iteration.
func BenchmarkKernelLoad(b *testing.B) {
	floorSock, kernelSock := startEchoFloor(b), loadKernel(b)
	var f *loadFigures
	for b.Loop() {
		var err error
		if f, err = measureLoad(floorSock, kernelSock); err != nil {
			b.Fatal(err)
		}
	}
	report := func(prefix string, r *loadResult) {
		b.ReportMetric(r.rps(), prefix+"-req/s")
		b.ReportMetric(float64(r.quantile(0.5))/1e3, prefix+"-p50-us")
		b.ReportMetric(float64(r.quantile(0.99))/1e3, prefix+"-p99-us")
	}
	report("kernel", f.kernel)
	report("floor", f.floor)
	report("lib", f.lib)
	report("shared", f.shared)
	b.ReportMetric(float64(f.floorSolo.quantile(0.5))/1e3, "floor-solo-p50-us")
	b.ReportMetric(float64(f.kernelSolo.quantile(0.5))/1e3, "kernel-solo-p50-us")
	b.ReportMetric(f.ratio(), "p50-ratio")
	b.ReportMetric(0, "ns/op")
	for _, r := range f.all() {
		b.Log(r)
	}
	b.Log(f.summary())
}

// TestLoadHarness checks the measurement machinery itself, quickly: a
// small run against the floor and the kernel succeeds and counts every
// request, and a wrong answer is caught.
func TestLoadHarness(t *testing.T) {
	floor, kern := startEchoFloor(t), loadKernel(t)
	for _, sock := range []string{floor, kern} {
		r, err := runLoad("small", 4, 10, func(i int) (loadConn, error) {
			return dialRaw(sock, "h-"+strconv.Itoa(i))
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.requests != 40 || len(r.lat) != 40 || r.quantile(0.5) <= 0 || r.quantile(0.99) < r.quantile(0.5) {
			t.Errorf("%s: implausible result %v", sock, r)
		}
	}
	for _, bad := range []string{`{"$":"int","v":3}`, `{"$":"str","v":"2"}`, `2`, `{`} {
		if err := checkTwo(json.RawMessage(bad)); err == nil {
			t.Errorf("checkTwo(%s) accepted a wrong value", bad)
		}
	}
	if err := checkTwo(json.RawMessage(wantTwo)); err != nil {
		t.Errorf("checkTwo(%s): %v", wantTwo, err)
	}
}

func TestLoadQuantile(t *testing.T) {
	lat := make([]time.Duration, 100)
	for i := range lat {
		lat[i] = time.Duration(i+1) * time.Microsecond
	}
	r := &loadResult{lat: lat}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 50 * time.Microsecond}, {0.99, 99 * time.Microsecond}, {1, 100 * time.Microsecond}, {0, time.Microsecond}} {
		if got := r.quantile(c.q); got != c.want {
			t.Errorf("quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if got := (&loadResult{}).quantile(0.5); got != 0 {
		t.Errorf("quantile of nothing = %v, want 0", got)
	}
}
