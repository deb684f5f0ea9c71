package value

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func mtFiles() *Table {
	return mtT([]string{"name", "type", "size"},
		[]any{"b.txt", "file", Size(300)},
		[]any{"a.txt", "file", Size(100)},
		[]any{"sub", "dir", Size(4096)},
		[]any{"c.txt", "file", Size(100)},
	)
}

func TestTableMethods(t *testing.T) {
	files := mtFiles()
	isFile := mtFn(func(v Value) Value {
		x, _ := v.(*Record).Get("type")
		return Bool(x == Str("file"))
	})
	mtRun(t, []mtCase{
		{name: "len", recv: files, method: "len", want: "4"},
		{name: "first", recv: files, method: "first", want: `{name: "b.txt", type: "file", size: 300b}`},
		{name: "where-keeps-table", recv: files, method: "where", args: []Value{isFile}, wantKind: KTable,
			want: Inline(mtT([]string{"name", "type", "size"},
				[]any{"b.txt", "file", Size(300)}, []any{"a.txt", "file", Size(100)}, []any{"c.txt", "file", Size(100)}))},
		{name: "map-gives-list", recv: files, method: "map", args: []Value{mtField("name")}, want: `["b.txt", "a.txt", "sub", "c.txt"]`},
		{name: "sort-by-stable", recv: files, method: "sort_by", args: []Value{mtField("size")}, wantKind: KTable,
			want: Inline(mtT([]string{"name", "type", "size"},
				[]any{"a.txt", "file", Size(100)}, []any{"c.txt", "file", Size(100)},
				[]any{"b.txt", "file", Size(300)}, []any{"sub", "dir", Size(4096)}))},
		{name: "sort-key", recv: files, method: "sort", args: []Value{mtField("name")}, wantKind: KTable,
			want: Inline(mtT([]string{"name", "type", "size"},
				[]any{"a.txt", "file", Size(100)}, []any{"b.txt", "file", Size(300)},
				[]any{"c.txt", "file", Size(100)}, []any{"sub", "dir", Size(4096)}))},
		{name: "group-count", recv: files, method: "group", args: []Value{mtField("type")}, want: Inline(mtL(
			mtR("key", "file", "values", mtL(files.Row(0), files.Row(1), files.Row(3))),
			mtR("key", "dir", "values", mtL(files.Row(2)))))},
		{name: "all", recv: files, method: "all", args: []Value{isFile}, want: "false"},
		{name: "enumerate", recv: mtT([]string{"n"}, []any{"a"}), method: "enumerate", want: `[[0, {n: "a"}]]`},
		{name: "get-type-error", recv: files, method: "get", args: mtArgs(0, 9), err: "type_error"},
		{name: "take", recv: files, method: "take", args: mtArgs(1), wantKind: KTable, want: Inline(mtT([]string{"name", "type", "size"}, []any{"b.txt", "file", Size(300)}))},
		{name: "select", recv: files, method: "select", args: mtArgs("name"), wantKind: KTable, want: Inline(mtT([]string{"name"}, []any{"b.txt"}, []any{"a.txt"}, []any{"sub"}, []any{"c.txt"}))},
		{name: "select-missing", recv: files, method: "select", args: mtArgs("nope"), err: "field_missing"},
		{name: "columns", recv: files, method: "columns", want: `["name", "type", "size"]`},
		{name: "collect-identity", recv: files, method: "collect", wantKind: KTable, want: Inline(files)},
		{name: "contains-row", recv: files, method: "contains", args: []Value{mtR("name", "sub", "type", "dir", "size", Size(4096))}, want: "true"},
	})
}

func TestRangeMethods(t *testing.T) {
	double := mtFn(func(v Value) Value { return v.(Int) * 2 })
	mtRun(t, []mtCase{
		{name: "len-inclusive", recv: Range{Lo: 1, Hi: 5, Inclusive: true}, method: "len", want: "5"},
		{name: "len-empty", recv: Range{Lo: 1, Hi: 1}, method: "len", want: "0"},
		{name: "len-reversed", recv: Range{Lo: 5, Hi: 1}, method: "len", want: "0"},
		{name: "contains", recv: Range{Lo: 1, Hi: 10}, method: "contains", args: mtArgs(5), want: "true"},
		{name: "contains-hi-excluded", recv: Range{Lo: 1, Hi: 10}, method: "contains", args: mtArgs(10), want: "false"},
		{name: "contains-float", recv: Range{Lo: 1, Hi: 10}, method: "contains", args: mtArgs(2.0), want: "true"},
		{name: "contains-non-member", recv: Range{Lo: 1, Hi: 5}, method: "contains", args: mtArgs(10), want: "false"},
		{name: "map", recv: Range{Lo: 1, Hi: 5}, method: "map", args: []Value{double}, want: "[2, 4, 6, 8]"},
		{name: "sum", recv: Range{Lo: 1, Hi: 5}, method: "sum", want: "10"},
		{name: "sum-inclusive", recv: Range{Lo: 1, Hi: 5, Inclusive: true}, method: "sum", want: "15"},
		{name: "sum-negative", recv: Range{Lo: -3, Hi: 3, Inclusive: true}, method: "sum", want: "0"},
		{name: "sum-overflow", recv: Range{Lo: 0, Hi: 1 << 40}, method: "sum", err: "overflow"},
		{name: "collect", recv: Range{Lo: 1, Hi: 4}, method: "collect", want: "[1, 2, 3]"},
		{name: "min", recv: Range{Lo: 1, Hi: 4}, method: "min", want: "1"},
		{name: "max", recv: Range{Lo: 1, Hi: 4}, method: "max", want: "3"},
		{name: "reverse", recv: Range{Lo: 1, Hi: 4}, method: "reverse", want: "[3, 2, 1]"},
		{name: "last", recv: Range{Lo: 1, Hi: 4, Inclusive: true}, method: "last", want: "4"},
		{name: "take", recv: Range{Lo: 0, Hi: 1 << 60}, method: "take", args: mtArgs(3), want: "[0, 1, 2]"},
		{name: "get-type-error", recv: Range{Lo: 0, Hi: 3}, method: "get", args: mtArgs(0), err: "type_error"},
		{name: "huge-collect", recv: Range{Lo: 0, Hi: 1 << 60}, method: "collect", err: CodeTooLarge},
	})
}

func TestSortPermutationFastPathsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() Value{
		"int":   func() Value { return Int(r.IntN(50) - 25) },
		"size":  func() Value { return Size(r.IntN(50)) },
		"float": func() Value { return Float(float64(r.IntN(50)) / 4) },
		"str":   func() Value { return Str(string(rune('a' + r.IntN(20)))) },
		"mixed": func() Value {
			if r.IntN(2) == 0 {
				return Int(r.IntN(20))
			}
			return Float(float64(r.IntN(40)) / 2)
		},
	}
	for name, gen := range gens {
		keys := make([]Value, 500)
		for i := range keys {
			keys[i] = gen()
		}
		got, err := SortPermutation(keys)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := mSortGeneral(keys)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: fast path order differs from Compare order", name)
		}
	}
}

func mtBigTable(n int) *Table {
	r := rand.New(rand.NewPCG(3, 4))
	names := make([]Value, n)
	sizes := make([]Value, n)
	for i := range n {
		names[i] = Str("f")
		sizes[i] = Size(r.IntN(1 << 20))
	}
	return &Table{Cols: []string{"name", "size"}, Data: [][]Value{names, sizes}, N: n}
}

func TestTableWhereSortByLarge(t *testing.T) {
	tab := mtBigTable(10000)
	env := &mFakeEnv{}
	big := mtFn(func(v Value) Value { s, _ := v.(*Record).Get("size"); return Bool(s.(Size) > 1<<19) })
	m, _ := LookupMethod(KTable, "where")
	kept, err := m(env, tab, Args{Pos: []Value{big}})
	if err != nil {
		t.Fatal(err)
	}
	if env.calls != tab.N {
		t.Fatalf("predicate called %d times for %d rows", env.calls, tab.N)
	}
	sb, _ := LookupMethod(KTable, "sort_by")
	env.calls = 0
	sorted, err := sb(env, kept, Args{Pos: []Value{mtField("size")}})
	if err != nil {
		t.Fatal(err)
	}
	kt := kept.(*Table)
	if env.calls != kt.N {
		t.Fatalf("key function called %d times for %d rows", env.calls, kt.N)
	}
	st := sorted.(*Table)
	col := st.Data[st.Col("size")]
	for i := 1; i < len(col); i++ {
		if col[i-1].(Size) > col[i].(Size) {
			t.Fatalf("rows %d, %d out of order", i-1, i)
		}
		if col[i].(Size) <= 1<<19 {
			t.Fatalf("row %d should have been filtered", i)
		}
	}
	if st.N == 0 || st.N == tab.N {
		t.Fatalf("unexpected filtered size %d of %d", st.N, tab.N)
	}
}

func BenchmarkTableWhereSortBy(b *testing.B) {
	tab := mtBigTable(1_000_000)
	env := &mFakeEnv{}
	pred := mtFn(func(v Value) Value { s, _ := v.(*Record).Get("size"); return Bool(s.(Size) > 1<<19) })
	key := mtField("size")
	where, _ := LookupMethod(KTable, "where")
	sortBy, _ := LookupMethod(KTable, "sort_by")
	b.ReportAllocs()
	for b.Loop() {
		kept, err := where(env, tab, Args{Pos: []Value{pred}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := sortBy(env, kept, Args{Pos: []Value{key}}); err != nil {
			b.Fatal(err)
		}
	}
}

// mtRowPred is a fake row-aware predicate, standing in for the evaluator's
// `.size > n` lambda fast path.
type mtRowPred struct {
	*Builtin
	col   string
	limit Size
}

func (p mtRowPred) CallRow(_ Env, t *Table, i int) (Value, bool, error) {
	c := t.Col(p.col)
	if c < 0 {
		return nil, false, nil
	}
	return Bool(t.Data[c][i].(Size) > p.limit), true, nil
}

// mtProjector is a fake `.field` lambda that declares its projection.
type mtProjector struct {
	*Builtin
	name string
}

func (p mtProjector) ProjectField() (string, bool) { return p.name, true }

func TestTableFastPathsSkipCalls(t *testing.T) {
	tab := mtBigTable(1000)
	env := &mFakeEnv{}
	pred := mtRowPred{Builtin: mtFn(func(Value) Value { panic("slow path") }), col: "size", limit: 1 << 19}
	where, _ := LookupMethod(KTable, "where")
	kept, err := where(env, tab, Args{Pos: []Value{pred}})
	if err != nil {
		t.Fatal(err)
	}
	sortBy, _ := LookupMethod(KTable, "sort_by")
	sorted, err := sortBy(env, kept, Args{Pos: []Value{mtProjector{Builtin: mtField("size"), name: "size"}}})
	if err != nil {
		t.Fatal(err)
	}
	if env.calls != 0 {
		t.Fatalf("fast paths made %d Env.Call calls", env.calls)
	}
	mapM, _ := LookupMethod(KTable, "map")
	names, err := mapM(env, kept, Args{Pos: []Value{mtProjector{Builtin: mtField("name"), name: "name"}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(names.(*List).Items); n != kept.(*Table).N {
		t.Fatalf("projected map gave %d items for %d rows", n, kept.(*Table).N)
	}
	if env.calls != 0 {
		t.Fatalf("fast paths made %d Env.Call calls", env.calls)
	}
	slow, err := sortBy(env, kept, Args{Pos: []Value{mtField("size")}})
	if err != nil {
		t.Fatal(err)
	}
	if !Equal(sorted, slow) {
		t.Fatal("projection fast path disagrees with the per-row path")
	}
}

func BenchmarkTableWhereSortByFastPaths(b *testing.B) {
	tab := mtBigTable(1_000_000)
	env := &mFakeEnv{}
	pred := mtRowPred{Builtin: mtFn(func(Value) Value { panic("slow path") }), col: "size", limit: 1 << 19}
	key := mtProjector{Builtin: mtField("size"), name: "size"}
	where, _ := LookupMethod(KTable, "where")
	sortBy, _ := LookupMethod(KTable, "sort_by")
	b.ReportAllocs()
	for b.Loop() {
		kept, err := where(env, tab, Args{Pos: []Value{pred}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := sortBy(env, kept, Args{Pos: []Value{key}}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTableRowsStayIndependent(t *testing.T) {
	tab := mtBigTable(1000)
	m, _ := LookupMethod(KTable, "map")
	rows, err := m(&mFakeEnv{}, tab, Args{Pos: []Value{mtFn(func(v Value) Value { return v })}})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows.(*List).Items {
		if !Equal(r, tab.Row(i)) {
			t.Fatalf("row %d changed after later rows were built: %s", i, Inline(r))
		}
	}
}
