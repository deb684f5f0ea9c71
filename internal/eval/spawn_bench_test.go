package eval

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// The spawn benchmarks compare running /bin/true through Shoal (parse,
// evaluate, gate, host spawn, outcome) with running it directly through
// os/exec, with the same environment and captured output:
//
//	go test -run '^$' -bench Spawn -count 5 ./internal/eval/

var spawnEnv = []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C"}

func spawnTrue(b *testing.B) string {
	b.Helper()
	p, err := exec.LookPath("true")
	if err != nil {
		b.Skipf("true not available: %v", err)
	}
	return p
}

func spawnInterp(b *testing.B) *Interp {
	b.Helper()
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: b.TempDir(), Env: spawnEnv})
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// BenchmarkSpawnShoalValue evaluates `(^/bin/true).ok`: a command in value
// position, captured into an outcome.
func BenchmarkSpawnShoalValue(b *testing.B) {
	src := "(^" + spawnTrue(b) + ").ok"
	in := spawnInterp(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		v, err := in.Eval(ctx, src)
		if err != nil || v != value.Bool(true) {
			b.Fatalf("Eval = %v, %v", v, err)
		}
	}
}

// BenchmarkSpawnShoalStmt evaluates `^/bin/true` followed by a value: the
// command in statement position, streaming to discarded writers.
func BenchmarkSpawnShoalStmt(b *testing.B) {
	src := "^" + spawnTrue(b) + "\n1"
	in := spawnInterp(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.Eval(ctx, src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpawnExec is the baseline: os/exec running /bin/true with the
// same environment, stdout and stderr captured.
func BenchmarkSpawnExec(b *testing.B) {
	truePath := spawnTrue(b)
	b.ReportAllocs()
	for b.Loop() {
		var out, errb bytes.Buffer
		cmd := exec.Command(truePath)
		cmd.Env = spawnEnv
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpawnPair alternates one Shoal spawn (value position) and one
// os/exec spawn per iteration and reports each one's mean and their ratio,
// so machine load drifting during the run weighs on both sides alike.
func BenchmarkSpawnPair(b *testing.B) {
	truePath := spawnTrue(b)
	src := "(^" + truePath + ").ok"
	in := spawnInterp(b)
	ctx := context.Background()
	var shoal, direct time.Duration
	for b.Loop() {
		start := time.Now()
		v, err := in.Eval(ctx, src)
		if err != nil || v != value.Bool(true) {
			b.Fatalf("Eval = %v, %v", v, err)
		}
		mid := time.Now()
		var out, errb bytes.Buffer
		cmd := exec.Command(truePath)
		cmd.Env = spawnEnv
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		shoal += mid.Sub(start)
		direct += time.Since(mid)
	}
	n := float64(b.N)
	b.ReportMetric(float64(shoal.Nanoseconds())/n, "shoal-ns/spawn")
	b.ReportMetric(float64(direct.Nanoseconds())/n, "exec-ns/spawn")
	b.ReportMetric(float64(shoal)/float64(direct), "shoal/exec")
}
