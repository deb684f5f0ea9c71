package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// The where + sort_by acceptance benchmark: a one-million-row {name, size}
// table, keep size > threshold (about half), then sort_by(.size). The
// "go-floor" sub-benchmark does the same work on a slice of structs in plain
// Go (filter, then stable sort), so the two run side by side:
//
//	go test -run '^$' -bench WhereSortBy1M -count 5 ./internal/eval/
const (
	wsRows      = 1_000_000
	wsThreshold = 1 << 19 // sizes are uniform in [0, 1<<20): about half are kept
)

type wsRow struct {
	name string
	size int64
}

// wsData builds the same pseudo-random rows for both sides.
func wsData() []wsRow {
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([]wsRow, wsRows)
	for i := range rows {
		rows[i] = wsRow{name: fmt.Sprintf("file-%07d", i), size: r.Int64N(1 << 20)}
	}
	return rows
}

func BenchmarkWhereSortBy1M(b *testing.B) {
	rows := wsData()

	b.Run("go-floor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			kept := make([]wsRow, 0, len(rows)/2)
			for _, r := range rows {
				if r.size > wsThreshold {
					kept = append(kept, r)
				}
			}
			slices.SortStableFunc(kept, func(a, b wsRow) int {
				switch {
				case a.size < b.size:
					return -1
				case a.size > b.size:
					return 1
				}
				return 0
			})
			if len(kept) == 0 {
				b.Fatal("nothing kept")
			}
		}
	})

	b.Run("shoal", func(b *testing.B) {
		benchWhereSortBy(b, rows, fmt.Sprintf("t.where(.size > %db).sort_by(.size)", wsThreshold))
	})
	// The same pipeline in a session with a memory budget (the kernel's
	// default 2 GiB under 8 GiB): what charging the values costs.
	b.Run("shoal-budget", func(b *testing.B) {
		benchWhereSortByOpts(b, rows, fmt.Sprintf("t.where(.size > %db).sort_by(.size)", wsThreshold), benchBudget())
	})
	// The same pipeline with explicit lambdas, which the evaluator calls
	// once per row instead of reading the column directly.
	b.Run("shoal-lambda", func(b *testing.B) {
		benchWhereSortBy(b, rows, fmt.Sprintf("t.where(r => r.size > %db).sort_by(r => r.size)", wsThreshold))
	})
}

func benchWhereSortBy(b *testing.B, rows []wsRow, src string) {
	benchWhereSortByOpts(b, rows, src, nil)
}

func benchWhereSortByOpts(b *testing.B, rows []wsRow, src string, bud *budget.Budget) {
	{
		names := make([]value.Value, len(rows))
		sizes := make([]value.Value, len(rows))
		for i, r := range rows {
			names[i] = value.Str(r.name)
			sizes[i] = value.Size(r.size)
		}
		tab := &value.Table{Cols: []string{"name", "size"}, Data: [][]value.Value{names, sizes}, N: len(rows)}
		in, err := New(Options{Registry: testRegistry, Host: newFakeHost(), Dir: "/work", Budget: bud})
		if err != nil {
			b.Fatal(err)
		}
		in.root.declare("t", tab, false)
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
			if out, ok := v.(*value.Table); !ok || out.N == 0 {
				b.Fatalf("unexpected result %T", v)
			}
		}
	}
}

// TestWhereSortByMatchesFloor checks that the Shoal pipeline the benchmark
// times computes the same rows, in the same order, as the plain-Go floor.
func TestWhereSortByMatchesFloor(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rows := make([]wsRow, 5000)
	names := make([]value.Value, len(rows))
	sizes := make([]value.Value, len(rows))
	for i := range rows {
		rows[i] = wsRow{name: fmt.Sprintf("f%d", i), size: r.Int64N(1000)}
		names[i] = value.Str(rows[i].name)
		sizes[i] = value.Size(rows[i].size)
	}
	var want []wsRow
	for _, row := range rows {
		if row.size > 500 {
			want = append(want, row)
		}
	}
	slices.SortStableFunc(want, func(a, b wsRow) int { return int(a.size - b.size) })

	in, err := New(Options{Registry: testRegistry, Host: newFakeHost(), Dir: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	in.root.declare("t", &value.Table{Cols: []string{"name", "size"}, Data: [][]value.Value{names, sizes}, N: len(rows)}, false)
	v, err := in.Eval(context.Background(), "t.where(.size > 500b).sort_by(.size)")
	if err != nil {
		t.Fatal(err)
	}
	got, ok := v.(*value.Table)
	if !ok {
		t.Fatalf("got %T, want a table", v)
	}
	if got.N != len(want) {
		t.Fatalf("kept %d rows, want %d", got.N, len(want))
	}
	nc, sc := got.Col("name"), got.Col("size")
	for i, w := range want {
		if got.Data[nc][i] != value.Str(w.name) || got.Data[sc][i] != value.Size(w.size) {
			t.Fatalf("row %d = %s %s, want %s %d", i, value.Inline(got.Data[nc][i]), value.Inline(got.Data[sc][i]), w.name, w.size)
		}
	}
}
