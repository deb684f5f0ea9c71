package eval

import (
	"context"
	"fmt"
	"testing"

	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/reclaim"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// benchProgram parses src once and evaluates it b.N times in one session.
func benchProgram(b *testing.B, setup func(in *Interp), src, want string) {
	b.Helper()
	benchProgramOpts(b, setup, src, want, nil)
}

// benchBudget is a session budget as the kernel makes one by default.
func benchBudget() *budget.Budget {
	k := budget.New("kernel memory", 8<<30, nil).WithReclaim(reclaim.Collect)
	return budget.New("session memory", 2<<30, k)
}

// benchBoth runs a program without a budget and with the kernel's default
// one, as sub-benchmarks side by side.
func benchBoth(b *testing.B, setup func(in *Interp), src, want string) {
	b.Run("plain", func(b *testing.B) { benchProgramOpts(b, setup, src, want, nil) })
	b.Run("budget", func(b *testing.B) { benchProgramOpts(b, setup, src, want, benchBudget()) })
}

func benchProgramOpts(b *testing.B, setup func(in *Interp), src, want string, bud *budget.Budget) {
	b.Helper()
	in, err := New(Options{Registry: testRegistry, Host: newFakeHost(), Dir: "/work", Budget: bud})
	if err != nil {
		b.Fatal(err)
	}
	if setup != nil {
		setup(in)
	}
	p, err := syntax.Parse(src, syntax.ParseOptions{IsBound: in.IsBound})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		v, err := in.EvalProgram(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		if got := value.Inline(v); got != want {
			b.Fatalf("got %s, want %s", got, want)
		}
	}
}

func BenchmarkFib(b *testing.B) {
	benchProgram(b, nil, "fn fib(n) { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }\nfib(20)", "6765")
}

func BenchmarkLoopSum(b *testing.B) {
	benchProgram(b, nil, "var s = 0\nfor i in 0..100000 { s += i }\ns", "4999950000")
}

func BenchmarkWhileLocals(b *testing.B) {
	benchProgram(b, nil, "fn f() { var i = 0\nvar s = 0\nwhile i < 100000 { let d = i * 2\ns += d\ni += 1 }\ns }\nf()", "9999900000")
}

func BenchmarkMapLambda(b *testing.B) {
	benchProgram(b, nil, "(0..100000).map(x => x * 2).sum()", "9999900000")
}

// benchTable binds `t`, a table of n rows with name and size columns.
func benchTable(n int) func(in *Interp) {
	return func(in *Interp) {
		names := make([]value.Value, n)
		sizes := make([]value.Value, n)
		for i := range n {
			names[i] = value.Str(fmt.Sprintf("f%d", i))
			sizes[i] = value.Size(i * 10)
		}
		in.root.declare("t", &value.Table{Cols: []string{"name", "size"}, Data: [][]value.Value{names, sizes}, N: n}, false)
	}
}

func BenchmarkTableWhereImplicit(b *testing.B) {
	benchProgram(b, benchTable(100000), "t.where(.size > 500000b).len()", "49999")
}

func BenchmarkTableSortBy(b *testing.B) {
	benchProgram(b, benchTable(100000), "t.sort_by(.size).first().name", `"f0"`)
}

// The memory budget's cost on programs that build values: each runs
// without a budget and with the kernel's default one.

func BenchmarkBudgetFib(b *testing.B) {
	benchBoth(b, nil, "fn fib(n) { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }\nfib(20)", "6765")
}

func BenchmarkBudgetMapLambda(b *testing.B) {
	benchBoth(b, nil, "(0..100000).map(x => x * 2).sum()", "9999900000")
}

func BenchmarkBudgetRecords(b *testing.B) {
	benchBoth(b, nil, "(0..100000).map(i => {a: i, b: \"x{i}\"}).len()", "100000")
}

func BenchmarkBudgetSmallLists(b *testing.B) {
	benchBoth(b, nil, "var n = 0\nfor i in 0..100000 { n += [i, i + 1, i + 2].len() }\nn", "300000")
}

func BenchmarkBudgetStringBuild(b *testing.B) {
	benchBoth(b, nil, "var s = \"x\"\nfor i in 0..20 { s = s + s }\ns.len()", "1048576")
}
