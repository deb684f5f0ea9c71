package value

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

func TestOwnSize(t *testing.T) {
	for _, c := range []struct {
		v    Value
		want int64
	}{
		{Nil, 0},
		{Bool(true), 0},
		{Int(5), 8},
		{Str("hello"), 16 + 5},
		{Bytes("ab"), 16 + 2},
		{NewList(make([]Value, 3, 10)), 24 + 16*10},
		{NewRecord([]string{"ab", "c"}, []Value{Int(1), Int(2)}), 48 + 16*2 + 16*2 + 3},
		{&Table{Cols: []string{"n"}, Data: [][]Value{make([]Value, 4)}, N: 4}, 56 + 16 + 24 + 1 + 16*4},
	} {
		if got := OwnSize(c.v); got != c.want {
			t.Errorf("OwnSize(%s) = %d, want %d", Inline(c.v), got, c.want)
		}
	}
}

func TestMeasureCountsEveryLevel(t *testing.T) {
	inner := NewList([]Value{Str(strings.Repeat("a", 100)), Int(1000)})
	mid := NewRecord([]string{"k"}, []Value{inner})
	outer := NewList([]Value{mid})
	want := OwnSize(outer) + OwnSize(mid) + OwnSize(inner) + (16 + 100) + 8
	var s Sizer
	if got := s.Measure(outer, 0, 0); got != want {
		t.Errorf("Measure = %d, want %d", got, want)
	}
}

// TestMeasureDeepValue measures a million nested lists: no recursion, so no
// stack overflow, and every level counted.
func TestMeasureDeepValue(t *testing.T) {
	var v Value = NewList(nil)
	const depth = 1_000_000
	for range depth {
		v = NewList([]Value{v})
	}
	var s Sizer
	got := s.Measure(v, 0, 0)
	if min := int64(depth) * (24 + 16); got < min {
		t.Errorf("deep value measured %d, want at least %d", got, min)
	}
}

// TestMeasureStopsPastLimit: a value that shares one list at every level
// has 2^60 paths; the cache counts each list once, and the limit stops a
// measurement of anything larger early.
func TestMeasureStopsPastLimit(t *testing.T) {
	var v Value = NewList([]Value{Str(strings.Repeat("x", 1000))})
	for range 60 {
		v = NewList([]Value{v, v})
	}
	var s Sizer
	if got := s.Measure(v, 0, 0); got > 1<<20 {
		t.Errorf("shared DAG measured %d bytes, want its few kilobytes", got)
	}
	big := make([]Value, 100_000)
	for i := range big {
		big[i] = Str(strings.Repeat("y", 100) + string(rune('a'+i%26)))
	}
	if got := s.Measure(NewList(big), 1<<16, 0); got <= 1<<16 || got > 1<<21 {
		t.Errorf("measure with limit 64 KiB returned %d: want just past the limit", got)
	}
}

func TestMeasureSharedStringOnce(t *testing.T) {
	s1 := Str(strings.Repeat("z", 1<<20))
	items := make([]Value, 1000)
	for i := range items {
		items[i] = s1
	}
	var s Sizer
	got := s.Measure(NewList(items), 0, 0)
	if want := OwnSize(NewList(items)) + 16 + 1<<20; got != want {
		t.Errorf("1000 references to one string measured %d, want %d", got, want)
	}
	// A longer string over the same bytes is not mistaken for the shorter.
	long := Str(strings.Repeat("q", 4096))
	short := long[:100]
	if got := s.Measure(NewList([]Value{short, long}), 0, 0); got < 16+4096 {
		t.Errorf("prefix then whole measured %d, want at least %d", got, 16+4096)
	}
}

func TestMeasureSplitsLargeValues(t *testing.T) {
	big := Str(strings.Repeat("b", 1<<20))
	bigList := NewList(make([]Value, 10_000))
	small := Str("s")
	v := NewList([]Value{big, small, NewRecord([]string{"l"}, []Value{bigList})})
	var s Sizer
	got := s.Measure(v, 0, 64<<10)
	if got > 4096 {
		t.Errorf("measured %d with large values split off", got)
	}
	if len(s.Split) != 2 {
		t.Fatalf("split %d values, want 2", len(s.Split))
	}
	s.Split = s.Split[:0]
	// The root itself is never split.
	if got := s.Measure(big, 0, 64<<10); got != 16+1<<20 || len(s.Split) != 0 {
		t.Errorf("root measured %d, split %d", got, len(s.Split))
	}
}

func TestMeasureOutcomeOutput(t *testing.T) {
	out := make([]byte, 1000, 4096)
	o := &Outcome{Cmd: "x", Stdout: out}
	var s Sizer
	if got := s.Measure(o, 0, 0); got != OwnSize(o)+16+4096 {
		t.Errorf("outcome measured %d", got)
	}
	if got := s.Measure(o, 0, 2048); got != OwnSize(o) || len(s.Split) != 1 {
		t.Errorf("outcome with output split measured %d, split %d", got, len(s.Split))
	}
	if b := s.Split[0].(Bytes); unsafe.StringData(string(b)) != &out[0] {
		t.Error("split output is a copy, not an alias")
	}
}

// ring is a Holder whose held values form a cycle through other holders.
type ring struct {
	next *ring
	val  Value
}

func (*ring) Kind() Kind            { return KClosure }
func (r *ring) FootprintOwn() int64 { return 32 }
func (r *ring) FootprintHeld(yield func(Value)) {
	yield(r.val)
	yield(r.next)
}

func TestMeasureHolderCycleTerminates(t *testing.T) {
	a := &ring{val: Str(strings.Repeat("h", 500))}
	b := &ring{val: Int(1000), next: a}
	a.next = b
	var s Sizer
	// Fill the cache so its slots are contended; holders are remembered
	// exactly regardless.
	items := []Value{a}
	for i := range 5000 {
		items = append(items, NewList([]Value{Int(int64(i))}))
	}
	got := s.Measure(NewList(items), 0, 0)
	if got < 32*2+16+500+8 {
		t.Errorf("cycle measured %d", got)
	}
}

// exactSize counts v with a complete visited set: the true footprint the
// Sizer must never undercount.
func exactSize(v Value, seenPtr map[uintptr]bool, seenStr map[uintptr]int) int64 {
	switch x := v.(type) {
	case Str:
		return exactText(string(x), seenStr)
	case Bytes:
		return exactText(string(x), seenStr)
	case *List, *Record, *Table:
		p := dataPointer(v)
		if seenPtr[p] {
			return 0
		}
		seenPtr[p] = true
	}
	n := OwnSize(v)
	switch x := v.(type) {
	case *List:
		for _, it := range x.Items {
			n += exactSize(it, seenPtr, seenStr)
		}
	case *Record:
		for _, it := range x.vals {
			n += exactSize(it, seenPtr, seenStr)
		}
	}
	return n
}

func exactText(s string, seen map[uintptr]int) int64 {
	if len(s) >= cacheMin {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		if seen[p] >= len(s) {
			return 0
		}
		seen[p] = len(s)
	}
	return int64(16 + len(s))
}

// TestMeasureNeverUndercounts builds random values with much sharing and
// checks the Sizer's count against the exact one.
func TestMeasureNeverUndercounts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	var s Sizer
	for trial := range 200 {
		pool := []Value{Int(1000), Str(strings.Repeat("p", 70+r.IntN(200))), Str("short")}
		for range 50 + r.IntN(300) {
			switch r.IntN(3) {
			case 0:
				items := make([]Value, r.IntN(8))
				for i := range items {
					items[i] = pool[r.IntN(len(pool))]
				}
				pool = append(pool, NewList(items))
			case 1:
				pool = append(pool, NewRecord([]string{"a", "b"}, []Value{pool[r.IntN(len(pool))], pool[r.IntN(len(pool))]}))
			default:
				pool = append(pool, Str(strings.Repeat("s", r.IntN(300))))
			}
		}
		root := NewList(pool)
		exact := exactSize(root, map[uintptr]bool{}, map[uintptr]int{})
		if got := s.Measure(root, 0, 0); got < exact {
			t.Fatalf("trial %d: measured %d, exact %d", trial, got, exact)
		}
	}
}

func BenchmarkMeasureTable1M(b *testing.B) {
	names := make([]Value, 1_000_000)
	sizes := make([]Value, len(names))
	for i := range names {
		names[i] = Str("file-" + strings.Repeat("0", i%8))
		sizes[i] = Size(i * 1000)
	}
	tab := &Table{Cols: []string{"name", "size"}, Data: [][]Value{names, sizes}, N: len(names)}
	var s Sizer
	b.ReportAllocs()
	for b.Loop() {
		s.Measure(tab, 0, 64<<10)
	}
}
