package fastpath

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The benchmarks of issue 24's table, each beside its floor in the same
// run (scripts/bench runs them all and prints the table):
//
//	go test -run '^$' -bench . -benchtime 2000x ./internal/fastpath/

// forkExecWait starts argv with stdin, stdout and stderr on fd (which
// must be /dev/null) in a process group of its own, and waits for it to
// exit 0: the floor of starting any program from Go.
func forkExecWait(argv, env []string, fd uintptr) error {
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{Env: env, Files: []uintptr{fd, fd, fd},
		Sys: &syscall.SysProcAttr{Setpgid: true}})
	if err != nil {
		return err
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		return err
	}
	if !ws.Exited() || ws.ExitStatus() != 0 {
		return fmt.Errorf("%s: %v", argv[0], ws)
	}
	return nil
}

func devNull(b *testing.B) uintptr {
	null, err := syscall.Open("/dev/null", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { syscall.Close(null) })
	return uintptr(null)
}

// BenchmarkOwnerSpawn is the table's first row: the kernel owner's
// `exec "^/bin/true"`, the whole RPC on the socket (decode, journal row,
// evaluation, contained spawn in a cgroup of its own where the kernel has
// cgroups, wait, answer), beside syscall.ForkExec and Wait4 of the same
// program from this process.
func BenchmarkOwnerSpawn(b *testing.B) {
	slow(b)
	truePath := lookTrue(b)
	k := startKernel(b, "")
	c := dial(b, k.sock, "spawn")
	// What the kernel found to contain its commands decides the work per
	// spawn (a cgroup v2 leaf made at clone, a v1 cgroup joined after
	// start, or none): say it beside the figures.
	line, err := c.call("kernel.info", []byte(`{}`))
	if err != nil {
		b.Fatal(err)
	}
	var info struct {
		Result struct {
			Containment json.RawMessage `json:"containment"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &info); err != nil {
		b.Fatal(err)
	}
	b.Logf("kernel containment: %s", info.Result.Containment)
	params := execParams("^" + truePath)
	fd := devNull(b)
	argv, env := []string{truePath}, []string{"PATH=/usr/bin:/bin"}
	kernel, floor := func() error { return c.exec(params) }, func() error { return forkExecWait(argv, env, fd) }
	warm(b, 10, kernel, floor)
	var p Pair
	cpu0 := k.cpu(b)
	for b.Loop() {
		if err := p.Run(kernel, floor); err != nil {
			b.Fatal(err)
		}
	}
	// The kernel's own CPU per spawn (its children's not counted), which
	// holds better than the wall-clock ratio on a loaded machine.
	b.ReportMetric(Micros(k.cpu(b)-cpu0)/float64(b.N), "kernel-cpu-us/spawn")
	p.Report(b, false)
}

// BenchmarkExecPure is the table's `exec "1 + 1"` rows: one connection's
// round trip to the kernel, p50 and p99, beside the same round trip to the
// floor server (a bare Go JSON-RPC server on a Unix socket in a process of
// its own, serveFloor).
func BenchmarkExecPure(b *testing.B) {
	slow(b)
	k := startKernel(b, "")
	kc := dial(b, k.sock, "pure")
	fc := dial(b, startFloor(b), "pure")
	params := execParams("1 + 1")
	kernel, floor := func() error { return kc.exec(params) }, func() error { return fc.exec(params) }
	warm(b, 200, kernel, floor)
	var p Pair
	cpu0 := k.cpu(b)
	for b.Loop() {
		if err := p.Run(kernel, floor); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(Micros(k.cpu(b)-cpu0)/float64(b.N), "kernel-cpu-us/req")
	p.Report(b, true)
}

// throughputClients and throughputPerClient shape BenchmarkThroughput32:
// each iteration is 32 × 500 requests to each server.
const (
	throughputClients   = 32
	throughputPerClient = 500
)

// BenchmarkThroughput32 is the table's throughput row: 32 connections,
// each in a session of its own, each making sequential `exec "1 + 1"`
// round trips, released together; the same against the floor server. An
// iteration is one such run against each (taking turns going first);
// req/s is over all iterations, and ratio-req/s is the kernel's share of
// the floor's.
func BenchmarkThroughput32(b *testing.B) {
	slow(b)
	k := startKernel(b, "")
	floor := startFloor(b)
	var kcs, fcs []*rpcConn
	for i := range throughputClients {
		kcs = append(kcs, dial(b, k.sock, "load-"+strconv.Itoa(i)))
		fcs = append(fcs, dial(b, floor, "load-"+strconv.Itoa(i)))
	}
	params := execParams("1 + 1")
	var kt, ft time.Duration
	var klat, flat []time.Duration
	load := func(conns []*rpcConn, total *time.Duration, lat *[]time.Duration) error {
		mine := make([][]time.Duration, len(conns))
		errs := make([]error, len(conns))
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, c := range conns {
			mine[i] = make([]time.Duration, 0, throughputPerClient)
			wg.Go(func() {
				<-start
				for range throughputPerClient {
					t0 := time.Now()
					if err := c.exec(params); err != nil {
						errs[i] = err
						return
					}
					mine[i] = append(mine[i], time.Since(t0))
				}
			})
		}
		t0 := time.Now()
		close(start)
		wg.Wait()
		*total += time.Since(t0)
		for i := range conns {
			if errs[i] != nil {
				return errs[i]
			}
			*lat = append(*lat, mine[i]...)
		}
		return nil
	}
	n := 0
	cpu0 := k.cpu(b)
	for b.Loop() {
		first, second := func() error { return load(kcs, &kt, &klat) }, func() error { return load(fcs, &ft, &flat) }
		if n%2 == 1 {
			first, second = second, first
		}
		n++
		if err := first(); err != nil {
			b.Fatal(err)
		}
		if err := second(); err != nil {
			b.Fatal(err)
		}
	}
	reqs := float64(n * throughputClients * throughputPerClient)
	b.ReportMetric(Micros(k.cpu(b)-cpu0)/reqs, "kernel-cpu-us/req")
	b.ReportMetric(reqs/kt.Seconds(), "req/s")
	b.ReportMetric(reqs/ft.Seconds(), "floor-req/s")
	b.ReportMetric(ft.Seconds()/kt.Seconds(), "ratio-req/s")
	b.ReportMetric(Micros(Quantile(klat, 0.5)), "p50-us")
	b.ReportMetric(Micros(Quantile(flat, 0.5)), "floor-p50-us")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkColdStart is the table's last row: a cold `shoal -c 1` (the
// standalone shell: start, read its configuration, evaluate, print, exit),
// started with syscall.ForkExec and waited for, beside /bin/true started
// the same way. scripts/bench-coldstart measures the same from bash.
func BenchmarkColdStart(b *testing.B) {
	slow(b)
	truePath := lookTrue(b)
	shoal := bin(b, "shoal")
	home := shortDir(b)
	if err := os.Mkdir(filepath.Join(home, "work"), 0o700); err != nil {
		b.Fatal(err)
	}
	fd := devNull(b)
	env := []string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + home,
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	wd, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	if err := os.Chdir(filepath.Join(home, "work")); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.Chdir(wd) })
	shoalArgv, trueArgv := []string{shoal, "-c", "1"}, []string{truePath}
	cold, floor := func() error { return forkExecWait(shoalArgv, env, fd) }, func() error { return forkExecWait(trueArgv, env, fd) }
	warm(b, 5, cold, floor)
	var p Pair
	for b.Loop() {
		if err := p.Run(cold, floor); err != nil {
			b.Fatal(err)
		}
	}
	p.Report(b, false)
}
