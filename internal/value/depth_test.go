package value

import (
	"errors"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/proto"
)

// TestMain caps the goroutine stack at 64 MiB for this package's tests, so
// that a walker which recursed over a value's depth would fail fast (a
// fatal "stack exceeds limit") instead of slowly eating a gigabyte before
// Go's default limit; every walker here must stay far below it.
func TestMain(m *testing.M) {
	debug.SetMaxStack(64 << 20)
	os.Exit(m.Run())
}

// hugeDepth is the depth of the values the depth tests build: far past
// MaxDepth, and deep enough that recursion over it would overflow the
// stack cap set in TestMain.
const hugeDepth = 1_000_000

// deepList returns leaf wrapped in n one-item lists, built iteratively.
func deepList(n int, leaf Value) Value {
	v := leaf
	for i := 0; i < n; i++ {
		v = NewList([]Value{v})
	}
	return v
}

// deepRecord returns leaf wrapped in n one-field records {a: ...}.
func deepRecord(n int, leaf Value) Value {
	v := leaf
	for i := 0; i < n; i++ {
		v = NewRecord([]string{"a"}, []Value{v})
	}
	return v
}

// deepTables returns leaf wrapped in n one-cell tables (column a).
func deepTables(n int, leaf Value) Value {
	v := leaf
	for i := 0; i < n; i++ {
		v = &Table{Cols: []string{"a"}, Data: [][]Value{{v}}, N: 1}
	}
	return v
}

// deepKinds are the container chains every walker is tried on.
var deepKinds = []struct {
	name  string
	build func(n int, leaf Value) Value
}{
	{"list", deepList},
	{"record", deepRecord},
	{"table", deepTables},
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("%s: got %v, want a %s error", what, err, code)
	}
}

// TestRenderDeep checks that inline and display renderings of values
// nested a million deep finish, show "…" past MaxDepth, and stay small.
func TestRenderDeep(t *testing.T) {
	for _, k := range deepKinds {
		t.Run(k.name, func(t *testing.T) {
			v := k.build(hugeDepth, Int(1))
			s := Inline(v)
			if !strings.Contains(s, elided) || len(s) > 64*MaxDepth {
				t.Fatalf("Inline: %d bytes, elided %v", len(s), strings.Contains(s, elided))
			}
			if got, cut := InlineLimit(v, 100); len(got) > 100 || !cut {
				t.Fatalf("InlineLimit: %d bytes, cut %v", len(got), cut)
			}
			if s := Interp(v); !strings.Contains(s, elided) {
				t.Fatalf("Interp shows no elision: %.80s", s)
			}
			for _, width := range []int{0, 80} {
				s, _ := DisplayBounded(v, TextBound{Width: width, Bytes: 1 << 20})
				if !strings.Contains(s, elided) && len(s) < 1<<20 {
					t.Fatalf("display at width %d: no elision in %d bytes", width, len(s))
				}
			}
			if s := Display(v); !strings.Contains(s, elided) {
				t.Fatalf("Display: no elision in %.80s", s)
			}
			if s := DisplayWidth(v, 80); !strings.Contains(s, elided) {
				t.Fatalf("DisplayWidth: no elision in %.80s", s)
			}
		})
	}
	// Exactly at the bound nothing is elided.
	at := deepList(MaxDepth, Int(7))
	if s := Inline(at); strings.Contains(s, elided) || !strings.Contains(s, "7") {
		t.Fatalf("a value at MaxDepth renders %.40s…", s)
	}
	if s := Inline(deepList(MaxDepth+1, Int(7))); !strings.Contains(s, elided) || strings.Contains(s, "7") {
		t.Fatalf("a value past MaxDepth renders its leaf")
	}
}

// TestEqualDeep checks == on values a million deep: equal chains are
// equal, chains differing only at the bottom are not.
func TestEqualDeep(t *testing.T) {
	for _, k := range deepKinds {
		t.Run(k.name, func(t *testing.T) {
			a, b := k.build(hugeDepth, Int(1)), k.build(hugeDepth, Float(1))
			c := k.build(hugeDepth, Int(2))
			if !Equal(a, b) {
				t.Fatal("equal chains compare unequal")
			}
			if Equal(a, c) || Equal(c, a) {
				t.Fatal("chains differing at the bottom compare equal")
			}
			if Equal(a, k.build(hugeDepth-1, Int(1))) {
				t.Fatal("chains of different depth compare equal")
			}
		})
	}
	// A list of records deep inside equals the table of the same rows.
	l := deepList(hugeDepth, NewList([]Value{NewRecord([]string{"a", "b"}, []Value{Int(1), Str("x")})}))
	tb := deepList(hugeDepth, &Table{Cols: []string{"b", "a"}, Data: [][]Value{{Str("x")}, {Int(1)}}, N: 1})
	if !Equal(l, tb) || !Equal(tb, l) {
		t.Fatal("deep list of records and table of the same rows differ")
	}
	// Wide and deep: a wide record whose every field is a deep chain.
	keys, vals, vals2 := make([]string, 8), make([]Value, 8), make([]Value, 8)
	for i := range keys {
		keys[i] = string(rune('a' + i))
		vals[i] = deepList(hugeDepth/8, Int(int64(i)))
		vals2[7-i] = deepList(hugeDepth/8, Int(int64(i)))
	}
	rev := make([]string, 8)
	for i := range keys {
		rev[7-i] = keys[i]
	}
	if !Equal(NewRecord(keys, vals), NewRecord(rev, vals2)) {
		t.Fatal("records with the same deep fields in another order differ")
	}
}

// TestEqualShapes keeps the iterative Equal honest on ordinary shapes.
func TestEqualShapes(t *testing.T) {
	tab := vcT([]string{"a", "b"}, []Value{Int(1), Str("x")}, []Value{Int(2), Str("y")})
	swapped := vcT([]string{"b", "a"}, []Value{Str("x"), Int(1)}, []Value{Str("y"), Int(2)})
	rows := vcL(vcR("a", Int(1), "b", Str("x")), vcR("b", Str("y"), "a", Int(2)))
	cases := []struct {
		a, b Value
		want bool
	}{
		{tab, swapped, true},
		{tab, rows, true},
		{rows, tab, true},
		{tab, vcL(vcR("a", Int(1), "b", Str("x")), vcR("a", Int(2), "c", Str("y"))), false},
		{tab, vcL(vcR("a", Int(1), "b", Str("x")), Int(2)), false},
		{tab, vcL(vcR("a", Int(1), "b", Str("x"))), false},
		{vcT([]string{"a"}), vcL(), true},
		{vcT(nil, []Value{}, []Value{}), vcL(vcR(), vcR()), true},
		{vcT(nil, []Value{}), vcL(vcR(), vcR()), false},
		{vcR("a", vcL(Int(1), Int(2)), "b", vcR()), vcR("b", vcR(), "a", vcL(Int(1), Float(2))), true},
		{vcR("a", Int(1)), vcR("b", Int(1)), false},
		{vcL(vcL(), vcL(Int(1))), vcL(vcL(), vcL(Int(1))), true},
		{vcL(vcL(), vcL(Int(1))), vcL(vcL(), vcL(Int(2))), false},
		{vcL(Float(math.NaN())), vcL(Float(math.NaN())), false},
	}
	for i, c := range cases {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("%d: Equal(%s, %s) = %v, want %v", i, Inline(c.a), Inline(c.b), got, c.want)
		}
	}
}

// TestEncodeDeep checks that every encoder fails a million-deep value with
// too_deep, and accepts one at MaxDepth.
func TestEncodeDeep(t *testing.T) {
	for _, k := range deepKinds {
		t.Run(k.name, func(t *testing.T) {
			v := k.build(hugeDepth, Int(1))
			_, err := JSONText(v, false)
			wantCode(t, "JSONText", err, CodeTooDeep)
			_, err = JSONText(v, true)
			wantCode(t, "JSONText pretty", err, CodeTooDeep)
			_, err = ToJSON(v)
			wantCode(t, "ToJSON", err, CodeTooDeep)
			_, err = ToWire(v)
			wantCode(t, "ToWire", err, CodeTooDeep)
			_, err = mtCall(v, "json")
			wantCode(t, ".json()", err, CodeTooDeep)
		})
	}
	// A table's cells sit one level below the table, two below a list of
	// tables: "at the bound" is counted the same way by every encoder.
	at := deepList(MaxDepth, Int(1))
	if _, err := JSONText(at, false); err != nil {
		t.Fatalf("JSONText at the bound: %v", err)
	}
	if _, err := ToWire(at); err != nil {
		t.Fatalf("ToWire at the bound: %v", err)
	}
	if _, err := ToJSON(at); err != nil {
		t.Fatalf("ToJSON at the bound: %v", err)
	}
}

// TestDecodeDeep checks that JSON documents and decoded Go data nested a
// million deep fail with too_deep.
func TestDecodeDeep(t *testing.T) {
	for _, doc := range []string{
		strings.Repeat("[", 4_000_000),
		strings.Repeat("[", hugeDepth) + strings.Repeat("]", hugeDepth),
		strings.Repeat(`{"a":`, hugeDepth) + "1" + strings.Repeat("}", hugeDepth),
	} {
		_, err := ParseJSON([]byte(doc))
		wantCode(t, "ParseJSON", err, CodeTooDeep)
	}
	if _, err := ParseJSON([]byte(strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1))); err != nil {
		t.Fatalf("ParseJSON at the bound: %v", err)
	}
	var d any = 1.0
	for i := 0; i < hugeDepth; i++ {
		if i%2 == 0 {
			d = []any{d}
		} else {
			d = map[string]any{"a": d}
		}
	}
	_, err := FromJSON(d)
	wantCode(t, "FromJSON", err, CodeTooDeep)
}

// TestMethodsDeep runs the methods that compare or render whole values on
// million-deep items.
func TestMethodsDeep(t *testing.T) {
	a, b := deepList(hugeDepth, Int(1)), deepList(hugeDepth, Int(1))
	c := deepList(hugeDepth, Int(2))
	mtRun(t, []mtCase{
		{name: "uniq", recv: NewList([]Value{a, b, c}), method: "len", want: "3"},
		{name: "contains", recv: NewList([]Value{c, a}), method: "contains", args: []Value{b}, want: "true"},
		{name: "contains-not", recv: NewList([]Value{c}), method: "contains", args: []Value{b}, want: "false"},
	})
	got, err := mtCall(NewList([]Value{a, b, c}), "uniq")
	if err != nil || len(got.(*List).Items) != 2 {
		t.Fatalf("uniq of two equal deep lists and another: %v", err)
	}
}

// TestSharedEncodingBounded checks that a value whose parts are shared,
// standing for 2^40 leaves, fails to encode with too_large (or too_deep)
// instead of running out of memory, and still renders in bounded space.
func TestSharedEncodingBounded(t *testing.T) {
	var v Value = Str(strings.Repeat("x", 1024))
	for i := 0; i < 40; i++ {
		v = NewList([]Value{v, v})
	}
	_, err := JSONText(v, false)
	wantCode(t, "JSONText", err, CodeTooLarge)
	_, err = ToJSON(v)
	wantCode(t, "ToJSON", err, CodeTooLarge)
	_, err = ToWire(v)
	wantCode(t, "ToWire", err, CodeTooLarge)
	if s, cut := DisplayBounded(v, TextBound{Width: 80, Lines: 10, Bytes: 4096}); len(s) > 4096 || !strings.Contains(s, elided) {
		t.Fatalf("bounded display: %d bytes, cut %v: %q", len(s), cut, s)
	}
	if s, cut := DisplayBounded(v, TextBound{Bytes: 4096}); len(s) > 4096 || !cut {
		t.Fatalf("display bounded by bytes only: %d bytes, cut %v", len(s), cut)
	}
	if s, cut := InlineLimit(v, 4096); !cut || len(s) > 4096 {
		t.Fatalf("InlineLimit: %d bytes, cut %v", len(s), cut)
	}
}

// TestFromProtoDeep checks that a wire value built in Go a million deep
// converts with too_deep rather than by recursion.
func TestFromProtoDeep(t *testing.T) {
	var w proto.Value = proto.Int(1)
	for i := 0; i < hugeDepth; i++ {
		w = proto.List{w}
	}
	_, err := FromProto(w)
	wantCode(t, "FromProto", err, CodeTooDeep)
}

// TestNewRecordMany checks that records of many keys (found by map, not
// by scanning) keep the first position and the last value of a repeated
// key, as small ones do.
func TestNewRecordMany(t *testing.T) {
	for _, n := range []int{4, 100} {
		var keys []string
		var vals []Value
		for i := 0; i < n; i++ {
			keys, vals = append(keys, "k"+string(rune('a'+i%26))+strings.Repeat("x", i/26)), append(vals, Int(int64(i)))
		}
		keys, vals = append(keys, keys[1]), append(vals, Str("last"))
		r := NewRecord(keys, vals)
		if r.Len() != n || r.Keys()[1] != keys[1] || !Equal(r.Values()[1], Str("last")) {
			t.Fatalf("n=%d: %s", n, InlineShort(r, 200))
		}
		merged, err := mtCall(r, "merge", NewRecord([]string{keys[0], "new"}, []Value{Int(-1), Int(-2)}))
		if err != nil {
			t.Fatal(err)
		}
		m := merged.(*Record)
		if m.Len() != n+1 || !Equal(m.Values()[0], Int(-1)) || m.Keys()[n] != "new" {
			t.Fatalf("n=%d merge: %s", n, InlineShort(m, 200))
		}
	}
}
