package eval

import (
	"context"
	"io"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
)

// spawnLoopN is how many spawns one evaluation of the loop makes.
const spawnLoopN = 20

// BenchmarkSpawnLoop is issue 9's first process figure: /bin/true spawned
// from a Shoal loop in statement position, the way `shoal -c 'for i in
// 1..=N { ^/bin/true }'` runs it (an OS host allowing everything, output
// streamed to the session's writers), beside its floor in the same
// iteration: N bare syscall.ForkExec + Wait4 of the same program with the
// same environment, its three standard descriptors on /dev/null. It
// reports each side's wall time per spawn and their ratio, and each side's
// CPU time in this process per spawn (children excluded):
//
//	go test -run '^$' -bench SpawnLoop -count 5 ./internal/eval/
func BenchmarkSpawnLoop(b *testing.B) {
	truePath := spawnTrue(b)
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: b.TempDir(), Env: spawnEnv, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	prog, err := syntax.Parse("for i in 1..="+strconv.Itoa(spawnLoopN)+" { ^"+truePath+" }\n1", syntax.ParseOptions{IsBound: in.IsBound})
	if err != nil {
		b.Fatal(err)
	}
	null, err := syscall.Open("/dev/null", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer syscall.Close(null)
	fd := uintptr(null)
	attr := &syscall.ProcAttr{Env: spawnEnv, Files: []uintptr{fd, fd, fd}, Sys: &syscall.SysProcAttr{Setpgid: true}}
	argv := []string{truePath}
	ctx := context.Background()
	var shoalCPU, floorCPU time.Duration
	runShoal := func() time.Duration {
		start, cpu := time.Now(), selfCPU()
		if _, err := in.EvalProgram(ctx, prog); err != nil {
			b.Fatal(err)
		}
		shoalCPU += selfCPU() - cpu
		return time.Since(start)
	}
	runFloor := func() time.Duration {
		defer func(cpu time.Duration) { floorCPU += selfCPU() - cpu }(selfCPU())
		start := time.Now()
		for range spawnLoopN {
			pid, err := syscall.ForkExec(truePath, argv, attr)
			if err != nil {
				b.Fatal(err)
			}
			var ws syscall.WaitStatus
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || ws.ExitStatus() != 0 {
				b.Fatalf("wait4: %v, status %v", err, ws)
			}
		}
		return time.Since(start)
	}
	// The two sides take turns going first, so neither always runs on
	// the other's leftovers (caches, a pending collection, the scheduler).
	var shoal, floor time.Duration
	first := true
	for b.Loop() {
		if first {
			shoal += runShoal()
			floor += runFloor()
		} else {
			floor += runFloor()
			shoal += runShoal()
		}
		first = !first
	}
	n := float64(b.N * spawnLoopN)
	b.ReportMetric(float64(shoal.Nanoseconds())/n, "shoal-ns/spawn")
	b.ReportMetric(float64(floor.Nanoseconds())/n, "forkexec-ns/spawn")
	b.ReportMetric(float64(shoal)/float64(floor), "shoal/forkexec")
	b.ReportMetric(float64(shoalCPU.Nanoseconds())/n, "shoal-cpu-ns/spawn")
	b.ReportMetric(float64(floorCPU.Nanoseconds())/n, "forkexec-cpu-ns/spawn")
}

// selfCPU is the CPU time (user and system) this process has used, its
// children's excluded: the parent's share of a spawn, which machine load
// disturbs less than wall time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
