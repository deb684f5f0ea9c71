package proto

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestWireCanonical decodes each input and checks its canonical
// re-encoding ("=" means the input is already canonical).
func TestWireCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"$":"null"}`, "="},
		{`{"$":"bool","v":true}`, "="},
		{`{"v":-42,"$":"int"}`, `{"$":"int","v":-42}`},
		{`{"$":"int","v":9223372036854775807}`, "="},
		{`{"$":"float","v":3.5}`, "="},
		{`{"$":"float","v":2}`, "="},
		{`{"$":"float","v":1e-7}`, "="},
		{`{"$":"float","v":1.5E+30}`, `{"$":"float","v":1.5e+30}`},
		{`{"$":"float","v":"nan"}`, "="},
		{`{"$":"float","v":"-inf"}`, "="},
		{`{"$":"str","v":"a\"b\n\u00e9\u2028<&>"}`, "{\"$\":\"str\",\"v\":\"a\\\"b\\n\u00e9\u2028<&>\"}"},
		{`{"$":"bytes","v":"AP8="}`, "="},
		{`{"$":"bytes","v":""}`, "="},
		{`{"$":"path","v":"/tmp/a b"}`, "="},
		{`{"$":"path","v":"/tmp/\ufffd","raw":"L3RtcC//"}`, "{\"$\":\"path\",\"v\":\"/tmp/\ufffd\",\"raw\":\"L3RtcC//\"}"},
		{`{"$":"size","v":4096}`, "="},
		{`{"$":"duration","v":-1000000}`, "="},
		{`{"$":"datetime","v":"2026-07-16T09:30:00Z"}`, "="},
		{`{"$":"datetime","v":"2026-07-16T09:30:00.120000000+05:30"}`, `{"$":"datetime","v":"2026-07-16T09:30:00.12+05:30"}`},
		{`{"$":"datetime","v":"2026-07-16T09:30:00.000000001-08:00"}`, "="},
		{`{"$":"time","v":"09:30:00"}`, "="},
		{`{"$":"time","v":"23:59:59.500"}`, `{"$":"time","v":"23:59:59.5"}`},
		{`{"$":"list","v":[]}`, "="},
		{`{"$":"list","v":[{"$":"int","v":1},{"$":"list","v":[{"$":"null"}]}]}`, "="},
		{`{"$":"record","v":{"b":{"$":"int","v":1},"a":{"$":"str","v":"x"}}}`, "="},
		{`{"$":"table","cols":{"name":[{"$":"str","v":"a"},{"$":"null"}],"size":[{"$":"size","v":1},{"$":"size","v":2}]},"n":2}`, "="},
		{`{"$":"table","cols":{},"n":5}`, "="},
		{`{"$":"outcome","status":0,"ok":true,"signal":null,"out":{"$":"str","v":"hi\n"},"err":{"$":"str","v":""},"dur_ns":1500,"pid":42,"cmd":"echo hi"}`, "="},
		{`{"$":"outcome","status":null,"ok":false,"signal":"SIGKILL","out":{"$":"null"},"err":{"$":"bytes","v":"/w=="},"dur_ns":0,"pid":null,"cmd":"x","span":{"start":0,"end":1}}`, "="},
		{`{"$":"error","code":"div_zero","msg":"division by zero"}`, "="},
		{`{"$":"error","code":"cmd_failed","msg":"m","span":{"start":2,"end":5},"hint":"h","stderr":{"$":"str","v":"e"}}`, "="},
		{`{"$":"glob","pattern":"*.go"}`, "="},
		{`{"$":"glob","pattern":"*","hidden":false}`, `{"$":"glob","pattern":"*"}`},
		{`{"$":"glob","pattern":"*","hidden":true}`, "="},
		{`{"$":"regex","src":"^a+$"}`, "="},
		{`{"$":"range","start":1,"end":5,"inclusive":true}`, "="},
		{`{"$":"task","id":"task:7","done":false}`, "="},
		{`{"$":"closure","repr":"fn add(a, b)"}`, "="},
		{`{"$":"stream","label":"lines of log.txt"}`, "="},
		{`{"$":"secret","name":"github-token"}`, "="},
		{`{"$":"cmd","repr":"git status"}`, "="},
		{`{"$":"ref","uri":"shoal://out/12","of":"table","n":12000,"cols":{"name":"str","size":"size"},"preview":{"$":"table","cols":{},"n":5},"render_head":"first lines"}`, "="},
		{`{"$":"ref","uri":"shoal://out/3","of":"str","n":9}`, "="},
		{" \n{\"$\":\"null\"}\t", `{"$":"null"}`},
	}
	for _, tt := range tests {
		v, err := DecodeWire([]byte(tt.in))
		if err != nil {
			t.Errorf("DecodeWire(%s): %v", tt.in, err)
			continue
		}
		got, err := MarshalWire(v)
		if err != nil {
			t.Errorf("MarshalWire(%s): %v", tt.in, err)
			continue
		}
		want := tt.want
		if want == "=" {
			want = tt.in
		}
		if string(got) != want {
			t.Errorf("canonical form of %s\n got %s\nwant %s", tt.in, got, want)
		}
		if v2, err := DecodeWire(got); err != nil || !equalWire(v, v2) {
			t.Errorf("re-decoding %s: %v, equal=%v", got, err, err == nil && equalWire(v, v2))
		}
	}
}

func TestWireRejects(t *testing.T) {
	tests := []struct {
		in   string
		want error
		path string
	}{
		{`{"$":"int","v":1`, ErrSyntax, ""},
		{`{"$":"null"} {}`, ErrSyntax, ""},
		{`[1]`, ErrBadShape, ""},
		{`{"v":1}`, ErrBadShape, ""},
		{`{"$":"quux"}`, ErrUnknownTag, ""},
		{`{"$":7}`, ErrUnknownTag, ""},
		{`{"$":"list","v":[{"$":"Int","v":1}]}`, ErrUnknownTag, ".v[0]"},
		{`{"$":"null","v":1}`, ErrBadShape, ""},
		{`{"$":"int","v":1,"$":"int"}`, ErrBadShape, ""},
		{`{"$":"int","v":"1"}`, ErrBadShape, ".v"},
		{`{"$":"int","v":1.0}`, ErrBadNumber, ".v"},
		{`{"$":"int","v":9223372036854775808}`, ErrBadNumber, ".v"},
		{`{"$":"float","v":1e999}`, ErrBadNumber, ".v"},
		{`{"$":"float","v":"NaN"}`, ErrBadNumber, ".v"},
		{`{"$":"size","v":-1}`, ErrBadNumber, ".v"},
		{`{"$":"bytes","v":"AP8"}`, ErrBadBase64, ".v"},
		{`{"$":"bytes","v":"AP-_"}`, ErrBadBase64, ".v"},
		{`{"$":"path","v":"x","raw":"*"}`, ErrBadBase64, ".raw"},
		{`{"$":"datetime","v":"1750000123"}`, ErrBadDateTime, ".v"},
		{`{"$":"datetime","v":"2026-07-16T09:30:00"}`, ErrBadDateTime, ".v"},
		{`{"$":"datetime","v":"2026-07-16 09:30:00Z"}`, ErrBadDateTime, ".v"},
		{`{"$":"datetime","v":"2026-02-30T09:30:00Z"}`, ErrBadDateTime, ".v"},
		{`{"$":"time","v":"24:00:00"}`, ErrBadTime, ".v"},
		{`{"$":"time","v":"09:30"}`, ErrBadTime, ".v"},
		{`{"$":"time","v":"09:30:00.1234567890"}`, ErrBadTime, ".v"},
		{`{"$":"table","cols":{"a":[{"$":"null"}],"b":[]},"n":1}`, ErrColumnLength, ".cols.b"},
		{`{"$":"table","cols":{"a":[]},"n":-1}`, ErrBadNumber, ".n"},
		{`{"$":"table","cols":{"a":[{"$":"null"}],"a":[{"$":"null"}]},"n":1}`, ErrBadShape, ""},
		{`{"$":"table","cols":{"a b":[{"$":"nope"}]},"n":1}`, ErrUnknownTag, `.cols["a b"][0]`},
		{`{"$":"record","v":{"k":1}}`, ErrBadShape, ".v.k"},
		{`{"$":"outcome","status":0,"ok":true,"signal":null,"out":{"$":"null"},"err":{"$":"null"},"dur_ns":0,"pid":1}`, ErrBadShape, ""},
		{`{"$":"error","code":"c","msg":"m","span":{"start":5,"end":1}}`, ErrBadShape, ".span"},
		{`{"$":"error","code":"c","msg":"m","span":{"start":1,"end":2,"line":3}}`, ErrBadShape, ".span"},
		{`{"$":"secret","name":"t","value":"hunter2"}`, ErrBadShape, ""},
		{`{"$":"ref","uri":"u","of":"table","n":1,"cols":{"a":1}}`, ErrBadShape, ".cols.a"},
		{strings.Repeat(`{"$":"list","v":[`, MaxWireDepth+2) + strings.Repeat(`]}`, MaxWireDepth+2), ErrTooDeep, ""},
		{strings.Repeat(`[`, 100000), ErrTooDeep, ""},
	}
	for _, tt := range tests {
		err := ValidateWire([]byte(tt.in))
		if !errors.Is(err, tt.want) {
			t.Errorf("ValidateWire(%.60s) = %v, want %v", tt.in, err, tt.want)
			continue
		}
		var we *WireError
		if errors.As(err, &we) && tt.path != "" && !strings.HasPrefix(we.Path, tt.path) {
			t.Errorf("ValidateWire(%.60s): path %q, want prefix %q", tt.in, we.Path, tt.path)
		}
	}
}

func TestWireDepthBoundary(t *testing.T) {
	var v Value = Null{}
	for i := 0; i < MaxWireDepth; i++ {
		v = List{v}
	}
	b, err := MarshalWire(v)
	if err != nil {
		t.Fatalf("encode at the bound: %v", err)
	}
	if err := ValidateWire(b); err != nil {
		t.Fatalf("decode at the bound: %v", err)
	}
	if _, err := MarshalWire(List{v}); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("encode past the bound: %v", err)
	}
}

func TestWireEncodeRejects(t *testing.T) {
	tests := []struct {
		v    Value
		want error
	}{
		{Size(-1), ErrBadNumber},
		{Time(int64(24 * time.Hour)), ErrBadTime},
		{DateTime{T: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, ErrBadDateTime},
		{&Table{Cols: []string{"a"}, Data: [][]Value{{Null{}}}, N: 2}, ErrColumnLength},
		{&Record{Keys: []string{"a"}}, ErrBadShape},
	}
	for _, tt := range tests {
		if _, err := MarshalWire(tt.v); !errors.Is(err, tt.want) {
			t.Errorf("MarshalWire(%#v) = %v, want %v", tt.v, err, tt.want)
		}
	}
	if b, err := MarshalWire((*Path)(nil)); err != nil || string(b) != `{"$":"null"}` {
		t.Errorf("typed nil = %s, %v", b, err)
	}
}

func TestDateTimeOffsetKept(t *testing.T) {
	zone := time.FixedZone("", -(7*3600 + 30*60))
	in := DateTime{T: time.Date(2026, 7, 16, 9, 30, 0, 5, zone)}
	b, err := MarshalWire(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"$":"datetime","v":"2026-07-16T09:30:00.000000005-07:30"}`; string(b) != want {
		t.Fatalf("got %s want %s", b, want)
	}
	// An offset with seconds cannot be written in RFC 3339: UTC instead.
	odd := DateTime{T: time.Date(1900, 1, 1, 0, 0, 0, 0, time.FixedZone("LMT", 1172))}
	b, _ = MarshalWire(odd)
	v, err := DecodeWire(b)
	if err != nil || !v.(DateTime).T.Equal(odd.T) {
		t.Fatalf("odd offset: %s %v", b, err)
	}
}

// equalWire compares decoded values structurally: datetimes by instant and
// offset, floats treating NaN as equal to itself.
func equalWire(a, b Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Tag() != b.Tag() {
		return false
	}
	switch x := a.(type) {
	case Float:
		y := b.(Float)
		return x == y && math.Signbit(float64(x)) == math.Signbit(float64(y)) || math.IsNaN(float64(x)) && math.IsNaN(float64(y))
	case DateTime:
		y := b.(DateTime)
		_, ox := x.T.Zone()
		_, oy := y.T.Zone()
		return x.T.Equal(y.T) && ox == oy
	case Bytes:
		return string(x) == string(b.(Bytes))
	case *Path:
		y := b.(*Path)
		return x.V == y.V && (x.Raw == nil) == (y.Raw == nil) && string(x.Raw) == string(y.Raw)
	case List:
		y := b.(List)
		return len(x) == len(y) && equalAll(x, y)
	case *Record:
		y := b.(*Record)
		return strings.Join(x.Keys, "\x00") == strings.Join(y.Keys, "\x00") && len(x.Keys) == len(y.Keys) && equalAll(x.Vals, y.Vals)
	case *Table:
		y := b.(*Table)
		if x.N != y.N || len(x.Cols) != len(y.Cols) {
			return false
		}
		for c := range x.Cols {
			if x.Cols[c] != y.Cols[c] || len(x.Data[c]) != len(y.Data[c]) || !equalAll(x.Data[c], y.Data[c]) {
				return false
			}
		}
		return true
	case *Outcome:
		y := b.(*Outcome)
		return eqPtr(x.Status, y.Status) && x.Ok == y.Ok && eqPtr(x.Signal, y.Signal) &&
			equalWire(x.Out, y.Out) && equalWire(x.Err, y.Err) && x.DurNs == y.DurNs &&
			eqPtr(x.Pid, y.Pid) && x.Cmd == y.Cmd && eqPtr(x.Span, y.Span)
	case *Error:
		y := b.(*Error)
		return x.Code == y.Code && x.Msg == y.Msg && eqPtr(x.Span, y.Span) && x.Hint == y.Hint && equalWire(x.Stderr, y.Stderr)
	case *Ref:
		y := b.(*Ref)
		if x.URI != y.URI || x.Of != y.Of || x.N != y.N || x.RenderHead != y.RenderHead ||
			(x.Cols == nil) != (y.Cols == nil) || len(x.Cols) != len(y.Cols) || !equalWire(x.Preview, y.Preview) {
			return false
		}
		for i := range x.Cols {
			if x.Cols[i] != y.Cols[i] {
				return false
			}
		}
		return true
	case *Glob:
		return *x == *b.(*Glob)
	case *Regex:
		return *x == *b.(*Regex)
	case *Range:
		return *x == *b.(*Range)
	case *Task:
		return *x == *b.(*Task)
	case *Closure:
		return *x == *b.(*Closure)
	case *Stream:
		return *x == *b.(*Stream)
	case *Secret:
		return *x == *b.(*Secret)
	case *Cmd:
		return *x == *b.(*Cmd)
	}
	return a == b // Null, Bool, Int, Str, Size, Duration, Time
}

func equalAll(a, b []Value) bool {
	for i := range a {
		if !equalWire(a[i], b[i]) {
			return false
		}
	}
	return true
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
