package value

import (
	"testing"
)

func TestTapAndAlso(t *testing.T) {
	for _, name := range []string{"tap", "also"} {
		var seen Value
		spy := mtFn(func(v Value) Value { seen = v; return Int(0) })
		recv := mtInts(1, 2, 3)
		got, err := mtCall(recv, name, spy)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != Value(recv) || seen != Value(recv) {
			t.Fatalf("%s: got %v, callback saw %v", name, got, seen)
		}
	}
	boom := mtFnErr(func(Value) (Value, error) { return nil, Errorf("custom", "boom") })
	if _, err := mtCall(Str("x"), "tap", boom); err == nil {
		t.Fatal("tap swallowed the callback error")
	}
	// Every kind has tap, json and also.
	for k := range numKinds {
		for _, n := range []string{"tap", "also", "json"} {
			if _, ok := LookupMethod(k, n); !ok {
				t.Errorf("%s lacks .%s", k, n)
			}
		}
	}
}

func TestConversionMethods(t *testing.T) {
	mtRun(t, []mtCase{
		{name: "list-str", recv: mtL(Int(1), Str("a"), Bool(true), Nil), method: "str", err: "type_error"},
		{name: "record-display", recv: mtR("a", 1), method: "display", err: "type_error", contains: "interpolate"},
		{name: "json-list", recv: mtL(Int(1), Str("a")), method: "json", want: `"[1,\"a\"]"`},
		{name: "json-no-args", recv: Int(1), method: "json", args: mtArgs(1), err: "arg_error"},
	})
}

func TestUnknownMethod(t *testing.T) {
	mtRun(t, []mtCase{
		{name: "length", recv: mtInts(1, 2), method: "length", err: "field_missing", contains: "did you mean .len()?"},
		{name: "size-on-str", recv: Str("abc"), method: "size", err: "field_missing", contains: "did you mean .len()?"},
		{name: "read-str", recv: Path("a.txt"), method: "read_str", err: "field_missing", contains: "did you mean .read()?"},
		{name: "push", recv: mtInts(1), method: "push", err: "field_missing", contains: "list + [item]"},
		{name: "substring", recv: Str("hello"), method: "substring", err: "field_missing", contains: ".take(n)"},
		{name: "unrelated", recv: mtInts(1), method: "frobnicate", err: "field_missing", contains: "unknown method `.frobnicate` on list"},
		{name: "typo", recv: mtInts(1), method: "revrse", err: "field_missing", contains: "did you mean .reverse()?"},
		{name: "other-kind", recv: Int(5), method: "upper", err: "type_error", contains: "str"},
	})
	if e := UnknownMethod(mtInts(1), "frobnicate"); e.Hint != "" {
		t.Fatalf("unexpected suggestion %q", e.Hint)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"len", "len", 0}, {"revrse", "reverse", 1}} {
		if got := EditDistance(c.a, c.b); got != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
