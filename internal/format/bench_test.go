package format

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/syntax"
)

// benchSource is about 10,000 lines: the syntax package's benchmark chunk
// and this package's golden inputs, repeated, badly indented.
func benchSource(tb testing.TB) string {
	tb.Helper()
	var parts []string
	for _, name := range []string{"../syntax/testdata/bench/chunk.shl", "testdata/comments.shl", "testdata/layout.shl"} {
		b, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		parts = append(parts, string(b))
	}
	unit := strings.Join(parts, "\n")
	var b strings.Builder
	for strings.Count(b.String(), "\n") < 10_000 {
		b.WriteString(unit)
		b.WriteString("\n")
	}
	return b.String()
}

// BenchmarkFormat10KLines formats about 10,000 lines (target: under 50 ms
// a call) beside its floor, parsing the same source once with comments.
// The check parses the output again, so the floor is about half the work.
func BenchmarkFormat10KLines(b *testing.B) {
	src := benchSource(b)
	b.Run("format", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		cpu := processCPU()
		for b.Loop() {
			if _, err := Source([]byte(src)); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
	})
	b.Run("parse-floor", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		cpu := processCPU()
		for b.Loop() {
			if _, err := syntax.Parse(src, parseOptions); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
	})
}

// processCPU is the CPU time the process has used (every thread, the
// collector's too): on a shared machine a better measure than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per call since start as cpu-ms/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

func TestBenchSourceFormats(t *testing.T) {
	src := benchSource(t)
	if n := strings.Count(src, "\n"); n < 10_000 {
		t.Fatalf("%d lines", n)
	}
	if _, err := Source([]byte(src)); err != nil {
		t.Fatal(err)
	}
}
