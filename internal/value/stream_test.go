package value

import (
	"context"
	"errors"
	"testing"
	"time"
)

// stCall runs a stream method through the registry.
func stCall(t *testing.T, recv Value, name string, args ...Value) (Value, error) {
	t.Helper()
	m, ok := LookupMethod(recv.Kind(), name)
	if !ok {
		t.Fatalf("no method %s.%s", recv.Kind(), name)
	}
	return m(&mFakeEnv{}, recv, Args{Pos: args})
}

func stOf(items ...Value) *Stream { return StreamFromSlice("list", items) }

func TestStreamCombinators(t *testing.T) {
	double := mtFn(func(v Value) Value { return Int(v.(Int) * 2) })
	even := mtFn(func(v Value) Value { return Bool(v.(Int)%2 == 0) })
	add := mtFn2(func(a, b Value) Value { return Int(a.(Int) + b.(Int)) })
	ints := func(n ...int64) []Value {
		out := make([]Value, len(n))
		for i, x := range n {
			out[i] = Int(x)
		}
		return out
	}
	tests := []struct {
		name   string
		method string
		in     []Value
		args   []Value
		want   string
	}{
		{"map", "map", ints(1, 2, 3), []Value{double}, "[2, 4, 6]"},
		{"where", "where", ints(1, 2, 3, 4), []Value{even}, "[2, 4]"},
		{"filter", "filter", ints(1, 3), []Value{even}, "[]"},
		{"scan", "scan", ints(1, 2, 3), []Value{Int(10), add}, "[11, 13, 16]"},
		{"take", "take", ints(1, 2, 3), []Value{Int(2)}, "[1, 2]"},
		{"take zero", "take", ints(1, 2), []Value{Int(0)}, "[]"},
		{"skip", "skip", ints(1, 2, 3), []Value{Int(2)}, "[3]"},
		{"skip past end", "skip", ints(1), []Value{Int(5)}, "[]"},
		{"take_until pred", "take_until", ints(1, 2, 3), []Value{even}, "[1]"},
		{"dedupe", "dedupe", ints(1, 1, 2, 1), nil, "[1, 2, 1]"},
		{"distinct", "distinct", ints(1, 1, 2, 1), nil, "[1, 2]"},
		{"distinct across kinds", "distinct", []Value{Int(1), Float(1), Str("a"), Path("a"), NewList(ints(1)), NewList(ints(1)), Float(1.5)}, nil, `[1, "a", [1], 1.5]`},
		{"window", "window", ints(1, 2, 3), []Value{Int(2)}, "[[1, 2], [2, 3]]"},
		{"window longer than input", "window", ints(1), []Value{Int(2)}, "[]"},
		{"buffer", "buffer", ints(1, 2), []Value{Int(4)}, "[1, 2]"},
		{"enumerate", "enumerate", ints(7), nil, "[[0, 7]]"},
		{"throttle", "throttle", ints(1, 2, 3), []Value{Duration(time.Second)}, "[1]"},
		{"debounce", "debounce", ints(1, 2, 3), []Value{Duration(time.Second)}, "[3]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := stCall(t, stOf(tc.in...), tc.method, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := CollectStream(&mFakeEnv{}, s.(*Stream))
			if err != nil {
				t.Fatal(err)
			}
			if Inline(got) != tc.want {
				t.Errorf("%s = %s, want %s", tc.method, Inline(got), tc.want)
			}
		})
	}
}

func TestStreamArgErrors(t *testing.T) {
	tests := []struct {
		name, method string
		args         []Value
		code         string
	}{
		{"window zero", "window", []Value{Int(0)}, "arg_error"},
		{"window str", "window", []Value{Str("x")}, "type_error"},
		{"tee zero", "tee", []Value{Int(0)}, "arg_error"},
		{"take negative", "take", []Value{Int(-1)}, "type_error"},
		{"merge non-stream", "merge", []Value{NewList(nil)}, "type_error"},
		{"throttle negative", "throttle", []Value{Duration(-1)}, "arg_error"},
	}
	for _, tc := range tests {
		_, err := stCall(t, stOf(Int(1)), tc.method, tc.args...)
		var e *Error
		if !errors.As(err, &e) || e.Code != tc.code {
			t.Errorf("%s: err = %v, want %s", tc.name, err, tc.code)
		}
	}
}

func TestStreamSingleConsumption(t *testing.T) {
	s := stOf(Int(1))
	if _, err := stCall(t, s, "map", mtFn(func(v Value) Value { return v })); err != nil {
		t.Fatal(err)
	}
	_, err := stCall(t, s, "collect")
	var e *Error
	if !errors.As(err, &e) || e.Code != "stream_consumed" || e.Hint == "" {
		t.Fatalf("second use: %v, want stream_consumed with a hint", err)
	}
	if !s.Consumed() {
		t.Error("Consumed() = false after take")
	}
}

func TestStreamIdentityAndRender(t *testing.T) {
	a, b := stOf(), stOf()
	if !Equal(a, a) || Equal(a, b) {
		t.Error("streams must compare by identity")
	}
	if got := Inline(a); got != "<stream list>" {
		t.Errorf("Inline = %q", got)
	}
	live := NewStream("every(1s)", false, &sliceSource{})
	if got := Inline(live); got != "<stream every(1s) (live)>" {
		t.Errorf("Inline live = %q", got)
	}
}

func TestStreamOfSources(t *testing.T) {
	tests := []struct {
		in   Value
		want string
	}{
		{Str("a\r\nb\n"), `["a", "b"]`},
		{Str(""), "[]"},
		{Bytes("x\ny"), `["x", "y"]`},
		{Range{Lo: 1, Hi: 3, Inclusive: true}, "[1, 2, 3]"},
		{Range{Lo: 3, Hi: 1}, "[]"},
		{vcT([]string{"a"}, []Value{Int(1)}), "[{a: 1}]"},
	}
	for _, tc := range tests {
		s, ok := StreamOf(tc.in)
		if !ok {
			t.Fatalf("StreamOf(%s) not ok", Inline(tc.in))
		}
		got, err := CollectStream(&mFakeEnv{}, s)
		if err != nil || Inline(got) != tc.want {
			t.Errorf("StreamOf(%s) = %v, %v; want %s", Inline(tc.in), got, err, tc.want)
		}
	}
	if _, ok := StreamOf(Int(1)); ok {
		t.Error("an int must not stream")
	}
}

// liveSource is an endless counter standing in for a live source.
type liveSource struct {
	n      int64
	closed bool
}

func (l *liveSource) Next(env Env) (Value, bool, error) {
	if err := env.Context().Err(); err != nil {
		return nil, false, err
	}
	l.n++
	return Int(l.n), true, nil
}

func (l *liveSource) Close() { l.closed = true }

func TestStreamUnboundedCollect(t *testing.T) {
	src := &liveSource{}
	s := NewStream("live", false, src)
	_, err := CollectStream(&mFakeEnv{}, s)
	var e *Error
	if !errors.As(err, &e) || e.Code != "stream_unbounded" {
		t.Fatalf("collect live = %v, want stream_unbounded", err)
	}
	if src.n != 0 {
		t.Errorf("collect pulled %d items from a refused stream", src.n)
	}
	taken, err := stCall(t, NewStream("live", false, src), "take", Int(3))
	if err != nil {
		t.Fatal(err)
	}
	got, err := CollectStream(&mFakeEnv{}, taken.(*Stream))
	if err != nil || Inline(got) != "[1, 2, 3]" || !src.closed {
		t.Errorf("take(3) = %v, %v (closed %v)", got, err, src.closed)
	}
}

func TestTeeLiveDropsAreMarked(t *testing.T) {
	src := &liveSource{}
	forks, err := Tee(&mFakeEnv{}, NewStream("live", false, src), 2)
	if err != nil {
		t.Fatal(err)
	}
	env := &mFakeEnv{}
	a, _ := forks[0].Take()
	b, _ := forks[1].Take()
	// Drive the first fork far past the sibling queue.
	for i := 0; i < TeeQueue+10; i++ {
		if _, _, err := a.Next(env); err != nil {
			t.Fatal(err)
		}
	}
	var got []Value
	for i := 0; i < TeeQueue+1; i++ {
		v, ok, err := b.Next(env)
		if err != nil || !ok {
			t.Fatalf("fork b pull %d: %v %v", i, ok, err)
		}
		got = append(got, v)
	}
	if Inline(got[0]) != "1" || Inline(got[TeeQueue-1]) != Inline(Int(TeeQueue)) {
		t.Errorf("fork b kept %s..%s", Inline(got[0]), Inline(got[TeeQueue-1]))
	}
	if Inline(got[TeeQueue]) != "{dropped: 10}" {
		t.Errorf("after the queue: %s, want {dropped: 10}", Inline(got[TeeQueue]))
	}
	// Then b drives the source itself.
	if v, _, _ := b.Next(env); Inline(v) != Inline(Int(TeeQueue+11)) {
		t.Errorf("b resumed at %s", Inline(v))
	}
	a.Close()
	if src.closed {
		t.Error("source closed while a fork is open")
	}
	b.Close()
	if !src.closed {
		t.Error("source not closed after every fork closed")
	}
}

func TestDriveStreamCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	env := &ctxEnv{ctx: ctx}
	n := 0
	err := DriveStream(env, NewStream("live", false, &liveSource{}), func(Value) (bool, error) {
		n++
		if n == 5 {
			cancel()
		}
		return false, nil
	})
	var e *Error
	if !errors.As(err, &e) || e.Code != "cancelled" || n != 5 {
		t.Fatalf("drive after cancel = %v after %d items", err, n)
	}
}

type ctxEnv struct {
	mFakeEnv
	ctx context.Context
}

func (e *ctxEnv) Context() context.Context { return e.ctx }

func TestStreamMethodsOnDetachedHandle(t *testing.T) {
	h := &Handle{K: KStream, Repr: "lines"}
	for _, name := range []string{"map", "collect", "each", "tee", "take"} {
		m, _ := LookupMethod(KStream, name)
		args := Args{Pos: []Value{Int(1)}}
		if name == "collect" {
			args = Args{}
		}
		_, err := m(&mFakeEnv{}, h, args)
		var e *Error
		if !errors.As(err, &e) || e.Code != "type_error" {
			t.Errorf("%s on a detached handle = %v, want type_error", name, err)
		}
	}
}

func TestStreamDistinctIsBounded(t *testing.T) {
	items := make([]Value, MaxDistinct+1)
	for i := range items {
		items[i] = Int(int64(i))
	}
	s, err := stCall(t, stOf(items...), "distinct")
	if err != nil {
		t.Fatal(err)
	}
	_, err = CollectStream(&mFakeEnv{}, s.(*Stream))
	var e *Error
	if !errors.As(err, &e) || e.Code != "stream_limit" {
		t.Fatalf("distinct over %d items: err %v, want stream_limit", len(items), err)
	}
	// Exactly MaxDistinct distinct items, however many repeats, still pass.
	ok, err := stCall(t, stOf(append(items[:MaxDistinct:MaxDistinct], items[:100]...)...), "distinct")
	if err != nil {
		t.Fatal(err)
	}
	got, err := CollectStream(&mFakeEnv{}, ok.(*Stream))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Items); n != MaxDistinct {
		t.Fatalf("kept %d items, want %d", n, MaxDistinct)
	}
}
