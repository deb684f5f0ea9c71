package eval

import (
	"context"
	"fmt"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// benchProgram parses src once and evaluates it b.N times in one session.
func benchProgram(b *testing.B, setup func(in *Interp), src, want string) {
	b.Helper()
	in, err := New(Options{Host: newFakeHost(), Dir: "/work"})
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
