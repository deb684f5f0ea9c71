package value

import (
	"testing"
)

func TestListMethods(t *testing.T) {
	gt := func(n int) *Builtin { return mtFn(func(v Value) Value { return Bool(v.(Int) > Int(n)) }) }
	even := mtFn(func(v Value) Value { return Bool(v.(Int)%2 == 0) })
	double := mtFn(func(v Value) Value { return v.(Int) * 2 })
	neg := mtFn(func(v Value) Value { return -v.(Int) })
	slen := mtFn(func(v Value) Value { return Int(len(v.(Str))) })
	ident := mtFn(func(v Value) Value { return v })
	sum2 := mtFn2(mtAdd)
	mtRun(t, []mtCase{
		{name: "len", recv: mtInts(1, 2, 3), method: "len", want: "3"},
		{name: "count-is-len", recv: mtInts(1, 2, 3), method: "count", want: "3"},
		{name: "count-rejects-predicate", recv: mtInts(1, 2), method: "count", args: []Value{even}, err: "arg_error"},
		{name: "is-empty", recv: mtL(), method: "is_empty", want: "true"},
		{name: "first", recv: mtInts(1, 2, 3), method: "first", want: "1"},
		{name: "first-empty-null", recv: mtL(), method: "first", want: "null"},
		{name: "first-n", recv: mtInts(1, 2, 3), method: "first", args: mtArgs(2), want: "[1, 2]"},
		{name: "last", recv: mtInts(1, 2, 3), method: "last", want: "3"},
		{name: "last-n", recv: mtInts(1, 2, 3), method: "last", args: mtArgs(2), want: "[2, 3]"},
		{name: "last-n-full", recv: mtInts(1, 2, 3), method: "last", args: mtArgs(3), want: "[1, 2, 3]"},
		{name: "last-n-over", recv: mtInts(1, 2, 3), method: "last", args: mtArgs(9), want: "[1, 2, 3]"},
		{name: "first-negative", recv: mtInts(1), method: "first", args: mtArgs(-1), err: "type_error"},
		{name: "skip", recv: mtInts(1, 2, 3), method: "skip", args: mtArgs(1), want: "[2, 3]"},
		{name: "skip-past-end", recv: mtInts(1, 2), method: "skip", args: mtArgs(10), want: "[]"},
		{name: "take-past-end", recv: mtInts(1, 2), method: "take", args: mtArgs(10), want: "[1, 2]"},
		{name: "take-negative", recv: mtInts(1, 2, 3), method: "take", args: mtArgs(-1), err: "type_error"},
		{name: "skip-negative", recv: mtInts(1, 2, 3), method: "skip", args: mtArgs(-1), err: "type_error"},
		{name: "take-str-count", recv: mtInts(1, 2, 3), method: "take", args: mtArgs("2"), err: "type_error"},
		{name: "take-missing", recv: mtInts(1, 2, 3), method: "take", err: "arg_error"},
		{name: "map", recv: mtInts(1, 2, 3), method: "map", args: []Value{double}, want: "[2, 4, 6]"},
		{name: "map-missing-fn", recv: mtInts(1), method: "map", err: "arg_error", contains: "requires a function"},
		{name: "where", recv: mtInts(1, 2, 3, 4), method: "where", args: []Value{even}, want: "[2, 4]"},
		{name: "filter-alias", recv: mtInts(1, 2, 3, 4), method: "filter", args: []Value{even}, want: "[2, 4]"},
		{name: "where-none", recv: mtInts(1, 2, 3), method: "where", args: []Value{gt(10)}, want: "[]"},
		{name: "where-non-bool", recv: mtInts(1), method: "where", args: []Value{ident}, err: "type_error"},
		{name: "reduce", recv: mtInts(1, 2, 3, 4), method: "reduce", args: []Value{Int(0), sum2}, want: "10"},
		{name: "fold-alias", recv: mtStrs("a", "b", "c"), method: "fold", args: []Value{Str(""), sum2}, want: `"abc"`},
		{name: "reduce-empty-init", recv: mtL(), method: "reduce", args: []Value{Int(42), sum2}, want: "42"},
		{name: "reduce-missing", recv: mtL(), method: "reduce", args: mtArgs(1), err: "arg_error"},
		{name: "each-null", recv: mtInts(1, 2), method: "each", args: []Value{ident}, want: "null"},
		{name: "any", recv: mtInts(1, 2, 3), method: "any", args: []Value{gt(2)}, want: "true"},
		{name: "any-empty", recv: mtL(), method: "any", args: []Value{gt(2)}, want: "false"},
		{name: "all-false", recv: mtInts(1, 2, 3), method: "all", args: []Value{gt(1)}, want: "false"},
		{name: "all-empty", recv: mtL(), method: "all", args: []Value{gt(1)}, want: "true"},
		{name: "find", recv: mtInts(1, 2, 3, 4), method: "find", args: []Value{gt(2)}, want: "3"},
		{name: "find-none", recv: mtInts(1, 2), method: "find", args: []Value{gt(10)}, want: "null"},
		{name: "flat-map", recv: mtInts(1, 2), method: "flat_map", args: []Value{mtFn(func(v Value) Value { return mtL(v, v.(Int)*10) })}, want: "[1, 10, 2, 20]"},
		{name: "flat-map-non-collection", recv: mtInts(1, 2), method: "flat_map", args: []Value{ident}, err: "type_error"},
		{name: "sort", recv: mtInts(3, 1, 2), method: "sort", want: "[1, 2, 3]"},
		{name: "sort-strs", recv: mtStrs("b", "a"), method: "sort", want: `["a", "b"]`},
		{name: "sort-mixed-num", recv: mtL(Int(3), Float(1.5), Int(2)), method: "sort", want: "[1.5, 2, 3]"},
		{name: "sort-incomparable", recv: mtL(Int(1), Str("a"), Int(2)), method: "sort", err: "type_error", contains: "cannot compare"},
		{name: "sort-key", recv: mtL(mtR("k", 2), mtR("k", 1)), method: "sort", args: []Value{mtField("k")}, want: "[{k: 1}, {k: 2}]"},
		{name: "sort-key-incomparable", recv: mtL(mtR("k", 1), mtR("k", "a"), mtR("k", 2)), method: "sort", args: []Value{mtField("k")}, err: "type_error", contains: "cannot compare"},
		{name: "sort-by", recv: mtStrs("bb", "a", "ccc"), method: "sort_by", args: []Value{slen}, want: `["a", "bb", "ccc"]`},
		{name: "sort-by-desc", recv: mtInts(3, 1, 2), method: "sort_by", args: []Value{neg}, want: "[3, 2, 1]"},
		{name: "sort-by-stable", recv: mtStrs("b", "a", "dd", "cc"), method: "sort_by", args: []Value{slen}, want: `["b", "a", "dd", "cc"]`},
		{name: "sort-by-missing", recv: mtInts(1), method: "sort_by", err: "arg_error"},
		{name: "reverse", recv: mtInts(1, 2, 3), method: "reverse", want: "[3, 2, 1]"},
		{name: "uniq", recv: mtInts(3, 1, 3, 2, 1), method: "uniq", want: "[3, 1, 2]"},
		{name: "uniq-empty", recv: mtL(), method: "uniq", want: "[]"},
		{name: "uniq-strs", recv: mtStrs("b", "a", "b"), method: "uniq", want: `["b", "a"]`},
		{name: "uniq-int-float", recv: mtL(Int(1), Float(1), Int(2)), method: "uniq", want: "[1, 2]"},
		{name: "uniq-lists", recv: mtL(mtInts(1), mtInts(1), mtInts(2)), method: "uniq", want: "[[1], [2]]"},
		{name: "sum", recv: mtInts(1, 2, 3), method: "sum", want: "6"},
		{name: "sum-empty", recv: mtL(), method: "sum", want: "0"},
		{name: "sum-floats", recv: mtL(Float(1.5), Float(2.5)), method: "sum", want: "4", wantKind: KFloat},
		{name: "sum-overflow", recv: mtL(Int(1<<62), Int(1<<62)), method: "sum", err: "overflow"},
		{name: "sum-durations", recv: mtL(Duration(1e9), Duration(2e9)), method: "sum", want: "3s"},
		{name: "sum-rejects-arg", recv: mtInts(1), method: "sum", args: []Value{ident}, err: "arg_error", contains: ".map(f).sum()"},
		{name: "min", recv: mtInts(3, 1, 2), method: "min", want: "1"},
		{name: "max", recv: mtInts(3, 1, 2), method: "max", want: "3"},
		{name: "min-empty", recv: mtL(), method: "min", want: "null"},
		{name: "max-empty", recv: mtL(), method: "max", want: "null"},
		{name: "min-durations", recv: mtL(Duration(3e9), Duration(1e9), Duration(2e9)), method: "min", want: "1s"},
		{name: "min-rejects-lambda", recv: mtInts(3, 1, 2), method: "min", args: []Value{ident}, err: "arg_error", contains: "min takes no arguments"},
		{name: "flatten", recv: mtL(mtInts(1), mtInts(2, 3)), method: "flatten", want: "[1, 2, 3]"},
		{name: "flatten-one-level", recv: mtL(mtL(Int(1), mtInts(2)), mtInts(3)), method: "flatten", want: "[1, [2], 3]"},
		{name: "flatten-empties", recv: mtL(mtL(), mtInts(1), mtL()), method: "flatten", want: "[1]"},
		{name: "flatten-scalar", recv: mtL(Int(1), mtInts(2, 3)), method: "flatten", err: "type_error"},
		{name: "flatten-range", recv: mtL(Range{Lo: 1, Hi: 3}), method: "flatten", want: "[1, 2]"},
		{name: "enumerate", recv: mtStrs("a", "b"), method: "enumerate", want: `[[0, "a"], [1, "b"]]`},
		{name: "enumerate-empty", recv: mtL(), method: "enumerate", want: "[]"},
		{name: "chunks", recv: mtInts(1, 2, 3, 4, 5), method: "chunks", args: mtArgs(2), want: "[[1, 2], [3, 4], [5]]"},
		{name: "chunks-exact", recv: mtInts(1, 2, 3, 4), method: "chunks", args: mtArgs(2), want: "[[1, 2], [3, 4]]"},
		{name: "chunks-zero", recv: mtInts(1, 2, 3), method: "chunks", args: mtArgs(0), err: "arg_error"},
		{name: "chunks-negative", recv: mtInts(1, 2, 3), method: "chunks", args: mtArgs(-1), err: "type_error"},
		{name: "zip", recv: mtInts(1, 2), method: "zip", args: []Value{mtStrs("a", "b")}, want: `[[1, "a"], [2, "b"]]`},
		{name: "zip-shorter", recv: mtInts(1, 2, 3), method: "zip", args: []Value{mtInts(10, 20)}, want: "[[1, 10], [2, 20]]"},
		{name: "zip-empty", recv: mtL(), method: "zip", args: []Value{mtL()}, want: "[]"},
		{name: "zip-scalar", recv: mtL(), method: "zip", args: mtArgs(1), err: "type_error"},
		{name: "group", recv: mtInts(1, 1, 2), method: "group", args: []Value{ident}, want: "[{key: 1, values: [1, 1]}, {key: 2, values: [2]}]"},
		{name: "group-by-alias", recv: mtInts(1, 2, 3, 4), method: "group_by", args: []Value{even}, want: "[{key: false, values: [1, 3]}, {key: true, values: [2, 4]}]"},
		{name: "join", recv: mtStrs("1", "2", "3"), method: "join", args: mtArgs("-"), want: `"1-2-3"`},
		{name: "join-default", recv: mtStrs("a", "b"), method: "join", want: `"ab"`},
		{name: "join-single", recv: mtStrs("only"), method: "join", args: mtArgs(","), want: `"only"`},
		{name: "join-non-str", recv: mtInts(1, 2), method: "join", args: mtArgs(","), err: "type_error"},
		{name: "contains", recv: mtInts(1, 2), method: "contains", args: mtArgs(2), want: "true"},
		{name: "contains-structural", recv: mtL(mtInts(1, 2)), method: "contains", args: []Value{mtInts(1, 2)}, want: "true"},
		{name: "contains-missing", recv: mtInts(1, 2), method: "contains", args: mtArgs(3), want: "false"},
		{name: "get", recv: mtInts(1, 2, 3), method: "get", args: mtArgs(1), want: "2"},
		{name: "get-default", recv: mtInts(1, 2, 3), method: "get", args: mtArgs(9, "missing"), want: `"missing"`},
		{name: "get-no-default", recv: mtInts(1, 2, 3), method: "get", args: mtArgs(9), want: "null"},
		{name: "get-negative", recv: mtInts(1, 2, 3), method: "get", args: mtArgs(-1, 99), want: "3"},
		{name: "get-negative-out", recv: mtInts(1, 2, 3), method: "get", args: mtArgs(-9, 99), want: "99"},
		{name: "get-str-key", recv: mtInts(1, 2), method: "get", args: mtArgs("a", 0), err: "type_error"},
		{name: "get-record-default", recv: mtL(mtR("a", 1)), method: "get", args: []Value{Int(5), mtR("a", 0)}, want: "{a: 0}"},
		{name: "collect-identity", recv: mtInts(1), method: "collect", want: "[1]"},
		{name: "tee-default", recv: mtInts(1, 2), method: "tee", want: "[[1, 2], [1, 2]]"},
		{name: "tee-n", recv: mtInts(1), method: "tee", args: mtArgs(3), want: "[[1], [1], [1]]"},
		{name: "tee-negative", recv: mtInts(1, 2, 3), method: "tee", args: mtArgs(-1), err: "type_error"},
		{name: "tee-zero", recv: mtInts(1, 2, 3), method: "tee", args: mtArgs(0), err: "arg_error"},
	})
}

func TestNamedArgsRejected(t *testing.T) {
	for _, name := range []string{"len", "map", "sort", "join", "get"} {
		m, ok := LookupMethod(KList, name)
		if !ok {
			t.Fatalf("no list.%s", name)
		}
		_, err := m(&mFakeEnv{}, mtInts(1), Args{Named: []NamedArg{{Name: "x", Value: Int(1)}}})
		if e, ok := err.(*Error); !ok || e.Code != "arg_error" {
			t.Errorf("%s with a named argument: got %v, want arg_error", name, err)
		}
	}
}

func TestListKeysExtractedOnce(t *testing.T) {
	env := &mFakeEnv{}
	m, _ := LookupMethod(KList, "sort_by")
	if _, err := m(env, mtInts(5, 3, 9, 1, 7), Args{Pos: []Value{mtFn(func(v Value) Value { return v })}}); err != nil {
		t.Fatal(err)
	}
	if env.calls != 5 {
		t.Fatalf("key function called %d times for 5 items", env.calls)
	}
}
