package value

import "testing"

func TestRecordMethods(t *testing.T) {
	ab := mtR("a", 1, "b", 2)
	mtRun(t, []mtCase{
		{name: "len", recv: ab, method: "len", want: "2"},
		{name: "count", recv: ab, method: "count", want: "2"},
		{name: "is-empty", recv: mtR(), method: "is_empty", want: "true"},
		{name: "keys", recv: ab, method: "keys", want: `["a", "b"]`},
		{name: "keys-empty", recv: mtR(), method: "keys", want: "[]"},
		{name: "values", recv: ab, method: "values", want: "[1, 2]"},
		{name: "items", recv: ab, method: "items", want: `[["a", 1], ["b", 2]]`},
		{name: "set-replaces-in-place", recv: ab, method: "set", args: mtArgs("a", 99), want: "{a: 99, b: 2}"},
		{name: "set-appends", recv: ab, method: "set", args: mtArgs("c", 3), want: "{a: 1, b: 2, c: 3}"},
		{name: "set-missing", recv: ab, method: "set", err: "arg_error", contains: "requires a key"},
		{name: "set-missing-value", recv: ab, method: "set", args: mtArgs("a"), err: "arg_error"},
		{name: "set-int-key", recv: ab, method: "set", args: mtArgs(1, 2), err: "type_error"},
		{name: "merge", recv: ab, method: "merge", args: []Value{mtR("b", 20, "c", 3)}, want: "{a: 1, b: 20, c: 3}"},
		{name: "merge-non-record", recv: ab, method: "merge", args: mtArgs(5), err: "type_error"},
		{name: "get", recv: ab, method: "get", args: mtArgs("a", 0), want: "1"},
		{name: "get-default", recv: ab, method: "get", args: mtArgs("z", 0), want: "0"},
		{name: "get-null", recv: ab, method: "get", args: mtArgs("z"), want: "null"},
		{name: "get-int-key", recv: ab, method: "get", args: mtArgs(1), err: "type_error"},
		{name: "contains", recv: mtR("a", 1), method: "contains", args: mtArgs("a"), want: "true"},
		{name: "contains-false", recv: mtR("a", 1), method: "contains", args: mtArgs("z"), want: "false"},
		{name: "contains-int", recv: mtR("a", 1), method: "contains", args: mtArgs(1), err: "type_error"},
		{name: "json", recv: ab, method: "json", want: `"{\"a\":1,\"b\":2}"`},
		{name: "first-is-type-error", recv: ab, method: "first", err: "type_error"},
		{name: "sum-is-type-error", recv: ab, method: "sum", err: "type_error"},
		{name: "map-is-type-error", recv: ab, method: "map", err: "type_error"},
		{name: "where-is-type-error", recv: ab, method: "where", err: "type_error"},
	})
}

func TestRecordSetIsImmutable(t *testing.T) {
	r := mtR("a", 1)
	if _, err := mtCall(r, "set", mtArgs("b", 2)...); err != nil {
		t.Fatal(err)
	}
	if _, err := mtCall(r, "merge", mtR("a", 5, "c", 1)); err != nil {
		t.Fatal(err)
	}
	if got := Inline(r); got != "{a: 1}" {
		t.Fatalf("receiver changed to %s", got)
	}
}

func TestRecordReduceSetBuildsRecord(t *testing.T) {
	pairs := mtL(mtL(Str("a"), Int(1)), mtL(Str("b"), Int(2)))
	setter := mtFn2(func(acc, kv Value) Value {
		p := kv.(*List).Items
		v, err := mtCall(acc, "set", p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		return v
	})
	got, err := mtCall(pairs, "reduce", mtR(), setter)
	if err != nil {
		t.Fatal(err)
	}
	if s := Inline(got); s != "{a: 1, b: 2}" {
		t.Fatalf("got %s", s)
	}
}
