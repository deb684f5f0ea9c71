package syntax

import (
	_ "embed"
	"fmt"
	goparser "go/parser"
	gotoken "go/token"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// benchChunk is a corpus-like script fragment mixing declarations,
// expressions, commands, strings, matches and interpreter blocks. The
// kernel's parse RPC benchmark reads the same file.
//
//go:embed testdata/bench/chunk.shl
var benchChunk string

func benchSource() string {
	var b strings.Builder
	for b.Len() < 10*1024 {
		b.WriteString(benchChunk)
	}
	return b.String()
}

func TestBenchSourceParses(t *testing.T) {
	src := benchSource()
	if len(src) < 10*1024 {
		t.Fatalf("bench source is %d bytes", len(src))
	}
	if _, err := Parse(src, ParseOptions{}); err != nil {
		t.Fatal(err)
	}
}

// goBenchChunk is Go source of the same character as benchChunk
// (declarations, closures, composite literals, control flow, calls); the
// floor parses it with the standard library's go/parser.
const goBenchChunk = `
// summarizeN reports totals.
func summarizeN(rows []row, limit int) string {
	total := 0
	for _, r := range rows {
		total += r.size
	}
	names := make([]string, 0, limit)
	for _, r := range rows {
		if r.size > 1000 && len(names) < limit {
			names = append(names, r.name)
		}
	}
	status := "some"
	switch n := len(rows); {
	case n == 0:
		status = "empty"
	case n <= 3:
		status = "few"
	case n > 100:
		status = "many"
	}
	cfg := config{name: "shoal", ready: true, port: 8080, tags: []string{"a", "b"}, timeout: 250 * time.Millisecond}
	sort.Slice(rows, func(i, j int) bool { return rows[i].modified.Before(rows[j].modified) })
	if v, err := describe(cfg); err == nil && v != "" {
		status += v
	}
	return fmt.Sprintf("total %d across %d files: %s (%s)", total, len(rows), strings.Join(names, ", "), status)
}
`

// goBenchSource is a ~10 kB Go file built from goBenchChunk.
func goBenchSource() string {
	var b strings.Builder
	b.WriteString("package bench\n")
	for i := 0; b.Len() < 10*1024; i++ {
		b.WriteString(strings.ReplaceAll(goBenchChunk, "summarizeN", fmt.Sprintf("summarize%d", i)))
	}
	return b.String()
}

func TestGoBenchSourceParses(t *testing.T) {
	if _, err := goparser.ParseFile(gotoken.NewFileSet(), "bench.go", goBenchSource(), goparser.SkipObjectResolution); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkParse10KB parses a ~10 kB Shoal script ("shoal") beside the
// plain-Go floor ("go-floor": go/parser on ~10 kB of Go of the same
// character) and reports each one's 99th-percentile single-parse latency as
// p99-ns:
//
//	go test -run '^$' -bench Parse10KB -benchmem -count 6 ./internal/syntax/
func BenchmarkParse10KB(b *testing.B) {
	b.Run("shoal", func(b *testing.B) {
		src := benchSource()
		benchLatency(b, len(src), func() error {
			_, err := Parse(src, ParseOptions{})
			return err
		})
	})
	b.Run("shoal-parser", func(b *testing.B) {
		src := benchSource()
		var ps Parser
		benchLatency(b, len(src), func() error {
			_, err := ps.Parse(src, ParseOptions{})
			return err
		})
	})
	b.Run("shoal-comments", func(b *testing.B) {
		src := benchSource() // it has comments: the cost of keeping them
		benchLatency(b, len(src), func() error {
			_, err := Parse(src, ParseOptions{Comments: true})
			return err
		})
	})
	b.Run("go-floor", func(b *testing.B) {
		src := goBenchSource()
		benchLatency(b, len(src), func() error {
			_, err := goparser.ParseFile(gotoken.NewFileSet(), "bench.go", src, goparser.SkipObjectResolution)
			return err
		})
	})
}

// benchLatency runs parse b.N times, timing each call, and reports the
// 99th-percentile latency as p99-ns and the thread CPU time per call as
// cpu-ns/op beside the usual ns/op.
func benchLatency(b *testing.B, size int, parse func() error) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	times := make([]time.Duration, 0, b.N)
	cpu := startThreadCPU(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := parse(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	cpu.report(b)
	slices.Sort(times)
	b.ReportMetric(float64(times[min(len(times)-1, len(times)*99/100)].Nanoseconds()), "p99-ns")
}

// threadCPU measures the CPU time of the calling goroutine's thread, to
// which it locks the goroutine. On a machine shared with other work, the
// wall time of a benchmark grows with every time slice given to someone
// else; the thread's CPU time does not, so cpu-ns/op compares versions of
// the code far more steadily there (it still grows somewhat when a
// sibling hyperthread is busy).
type threadCPU struct{ start int64 }

func startThreadCPU(b *testing.B) *threadCPU {
	runtime.LockOSThread()
	b.Cleanup(runtime.UnlockOSThread)
	return &threadCPU{start: threadCPUNow(b)}
}

// report reports the CPU time since start per iteration as cpu-ns/op.
func (c *threadCPU) report(b *testing.B) {
	b.ReportMetric(float64(threadCPUNow(b)-c.start)/float64(max(b.N, 1)), "cpu-ns/op")
}

func threadCPUNow(b *testing.B) int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return ts.Nano()
}

// BenchmarkLex10KB lexes the benchmark script start to end in expression
// mode: the raw cost of the lexer that the parser's lookahead pays per token.
func BenchmarkLex10KB(b *testing.B) {
	src := benchSource()
	b.SetBytes(int64(len(src)))
	cpu := startThreadCPU(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pos, n := 0, 0
		for {
			t := lex(src, pos, exprMode)
			if t.kind == tEOF {
				break
			}
			pos, n = t.end, n+1
		}
		if n == 0 {
			b.Fatal("no tokens")
		}
	}
	cpu.report(b)
}

// BenchmarkMarshal10KB encodes the AST of the benchmark script as JSON
// into a reused buffer, as the kernel's parse method does (MB/s is of
// JSON written; cpu-ns/op is the thread's CPU time, see threadCPU).
//
//	go test -run '^$' -bench Marshal10KB -benchmem -count 6 ./internal/syntax/
func BenchmarkMarshal10KB(b *testing.B) {
	prog, err := Parse(benchSource(), ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	out, err := MarshalProgram(prog)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	buf := make([]byte, 0, 2*len(out))
	cpu := startThreadCPU(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if buf, err = AppendProgram(buf[:0], prog, 0); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}
