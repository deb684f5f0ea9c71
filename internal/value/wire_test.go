package value

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/proto"
)

// wireHandle is a foreign handle type standing in for the evaluator's
// closures and tasks.
type wireHandle struct {
	k    Kind
	text string
}

func (h wireHandle) Kind() Kind     { return h.k }
func (h wireHandle) String() string { return h.text }

type wireTaskHandle struct{}

func (wireTaskHandle) Kind() Kind               { return KTask }
func (wireTaskHandle) WireTask() (string, bool) { return "task:9", true }

func intp(n int) *int { return &n }

func TestWireRoundTrip(t *testing.T) {
	ist := time.FixedZone("", 5*3600+30*60)
	tbl := &Table{
		Cols: []string{"name", "size", "when"},
		Data: [][]Value{
			{Str("a.go"), Str("b c")},
			{Size(10), Nil},
			{DateTime{T: time.Date(2026, 7, 16, 9, 30, 0, 0, time.UTC)}, DateTime{T: time.Date(2026, 1, 2, 3, 4, 5, 600, ist)}},
		},
		N: 2,
	}
	tests := []struct {
		name string
		v    Value
		want string
	}{
		{"null", Nil, `{"$":"null"}`},
		{"bool", Bool(true), `{"$":"bool","v":true}`},
		{"int", Int(math.MinInt64), `{"$":"int","v":-9223372036854775808}`},
		{"float", Float(0.1), `{"$":"float","v":0.1}`},
		{"float integral", Float(3), `{"$":"float","v":3}`},
		{"float inf", Float(math.Inf(-1)), `{"$":"float","v":"-inf"}`},
		{"str", Str("tab\there \"q\" é"), `{"$":"str","v":"tab\there \"q\" é"}`},
		{"bytes", Bytes("\x00\xffhi"), `{"$":"bytes","v":"AP9oaQ=="}`},
		{"path utf8", Path("/tmp/a b"), `{"$":"path","v":"/tmp/a b"}`},
		{"path raw", Path("/tmp/\xff.txt"), `{"$":"path","v":"/tmp/\ufffd.txt","raw":"L3RtcC//LnR4dA=="}`},
		{"glob", &Glob{Pattern: "*.go"}, `{"$":"glob","pattern":"*.go"}`},
		{"glob hidden", &Glob{Pattern: "*", Hidden: true}, `{"$":"glob","pattern":"*","hidden":true}`},
		{"regex", &Regex{Source: `^a\d+$`, Re: regexp.MustCompile(`^a\d+$`)}, `{"$":"regex","src":"^a\\d+$"}`},
		{"size", Size(4096), `{"$":"size","v":4096}`},
		{"duration", Duration(-1500), `{"$":"duration","v":-1500}`},
		{"datetime utc", DateTime{T: time.Date(2026, 7, 16, 9, 30, 0, 0, time.UTC)}, `{"$":"datetime","v":"2026-07-16T09:30:00Z"}`},
		{"datetime offset ns", DateTime{T: time.Date(2026, 7, 16, 9, 30, 0, 120, ist)}, `{"$":"datetime","v":"2026-07-16T09:30:00.00000012+05:30"}`},
		{"time", Time(9*time.Hour + 30*time.Minute), `{"$":"time","v":"09:30:00"}`},
		{"time fraction", Time(23*time.Hour + 59*time.Minute + 59*time.Second + 250*time.Millisecond), `{"$":"time","v":"23:59:59.25"}`},
		{"range", Range{Lo: 1, Hi: 5, Inclusive: true}, `{"$":"range","start":1,"end":5,"inclusive":true}`},
		{"list", NewList([]Value{Int(1), NewList(nil), Nil}), `{"$":"list","v":[{"$":"int","v":1},{"$":"list","v":[]},{"$":"null"}]}`},
		{"record ordered", NewRecord([]string{"z", "a b"}, []Value{Int(1), Str("x")}), `{"$":"record","v":{"z":{"$":"int","v":1},"a b":{"$":"str","v":"x"}}}`},
		{"table", tbl, `{"$":"table","cols":{"name":[{"$":"str","v":"a.go"},{"$":"str","v":"b c"}],"size":[{"$":"size","v":10},{"$":"null"}],"when":[{"$":"datetime","v":"2026-07-16T09:30:00Z"},{"$":"datetime","v":"2026-01-02T03:04:05.0000006+05:30"}]},"n":2}`},
		{"empty table", &Table{Cols: []string{"a"}, Data: [][]Value{{}}, N: 0}, `{"$":"table","cols":{"a":[]},"n":0}`},
		{"outcome ok", &Outcome{Cmd: "echo hi", Status: intp(0), Stdout: []byte("hi\n"), Stderr: []byte{}, Pid: 42, Dur: 1500},
			`{"$":"outcome","status":0,"ok":true,"signal":null,"out":{"$":"str","v":"hi\n"},"err":{"$":"str","v":""},"dur_ns":1500,"pid":42,"cmd":"echo hi"}`},
		{"outcome structured", &Outcome{Cmd: "ls", Status: intp(0), Out: NewList([]Value{Int(1)}), Stderr: []byte{}},
			`{"$":"outcome","status":0,"ok":true,"signal":null,"out":{"$":"list","v":[{"$":"int","v":1}]},"err":{"$":"str","v":""},"dur_ns":0,"pid":null,"cmd":"ls"}`},
		{"outcome signal", &Outcome{Cmd: "sleep 9", Signal: "SIGKILL", Stdout: []byte("\xff"), Stderr: []byte("bye"), Pid: 7},
			`{"$":"outcome","status":null,"ok":false,"signal":"SIGKILL","out":{"$":"bytes","v":"/w=="},"err":{"$":"str","v":"bye"},"dur_ns":0,"pid":7,"cmd":"sleep 9"}`},
		{"error", &Error{Code: "div_zero", Msg: "division by zero"}, `{"$":"error","code":"div_zero","msg":"division by zero"}`},
		{"error full", &Error{Code: "cmd_failed", Msg: "m", Hint: "h", Span: syntax.Span{Start: 2, End: 7}, HasPos: true, Stderr: Str("e")},
			`{"$":"error","code":"cmd_failed","msg":"m","span":{"start":2,"end":7},"hint":"h","stderr":{"$":"str","v":"e"}}`},
		{"secret", NewSecret("github-token", "hunter2"), `{"$":"secret","name":"github-token"}`},
		{"closure handle", &Handle{K: KClosure, Repr: "fn add(a, b)"}, `{"$":"closure","repr":"fn add(a, b)"}`},
		{"task handle", &Handle{K: KTask, Repr: "task:3", Done: true}, `{"$":"task","id":"task:3","done":true}`},
		{"stream handle", &Handle{K: KStream, Repr: "lines"}, `{"$":"stream","label":"lines"}`},
		{"cmd handle", &Handle{K: KCommand, Repr: "git status"}, `{"$":"cmd","repr":"git status"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ToWire(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("ToWire\n got %s\nwant %s", got, tt.want)
			}
			if err := proto.ValidateWire(got); err != nil {
				t.Fatalf("proto rejects ToWire output: %v", err)
			}
			back, err := FromWire(got)
			if err != nil {
				t.Fatalf("FromWire: %v", err)
			}
			if back.Kind() != tt.v.Kind() {
				t.Fatalf("kind %s came back as %s", tt.v.Kind(), back.Kind())
			}
			if !sameWireValue(tt.v, back) {
				t.Fatalf("round trip changed the value: %s -> %s", Inline(tt.v), Inline(back))
			}
			again, err := ToWire(back)
			if err != nil || string(again) != string(got) {
				t.Fatalf("re-encoding differs: %s (%v)", again, err)
			}
		})
	}
}

// sameWireValue is Equal for data kinds plus the details Equal ignores:
// datetime offsets, exact path bytes, record key order, and outcome
// fields.
func sameWireValue(a, b Value) bool {
	switch x := a.(type) {
	case DateTime:
		y := b.(DateTime)
		_, ox := x.T.Zone()
		_, oy := y.T.Zone()
		return x.T.Equal(y.T) && ox == oy
	case Path:
		return x == b.(Path)
	case *Record:
		y := b.(*Record)
		if strings.Join(x.Keys(), "\x00") != strings.Join(y.Keys(), "\x00") {
			return false
		}
		for i := range x.Values() {
			if !sameWireValue(x.Values()[i], y.Values()[i]) {
				return false
			}
		}
		return true
	case *Table:
		y := b.(*Table)
		if x.N != y.N || strings.Join(x.Cols, "\x00") != strings.Join(y.Cols, "\x00") {
			return false
		}
		for c := range x.Data {
			for r := range x.Data[c] {
				if !sameWireValue(x.Data[c][r], y.Data[c][r]) {
					return false
				}
			}
		}
		return true
	case *Outcome:
		y := b.(*Outcome)
		return x.Cmd == y.Cmd && x.Signal == y.Signal && x.Pid == y.Pid && x.Dur == y.Dur &&
			(x.Status == nil) == (y.Status == nil) && (x.Status == nil || *x.Status == *y.Status) &&
			string(x.Stdout) == string(y.Stdout) && string(x.Stderr) == string(y.Stderr) &&
			(x.Out == nil) == (y.Out == nil) && (x.Out == nil || sameWireValue(x.Out, y.Out))
	case *Error:
		y := b.(*Error)
		return x.Code == y.Code && x.Msg == y.Msg && x.Hint == y.Hint && x.HasPos == y.HasPos &&
			x.Span == y.Span && (x.Stderr == nil) == (y.Stderr == nil) && (x.Stderr == nil || Equal(x.Stderr, y.Stderr))
	case *Glob:
		return *x == *b.(*Glob)
	case *Regex:
		y := b.(*Regex)
		return x.Source == y.Source && y.Re != nil && y.Re.String() == x.Source
	case *Secret:
		y := b.(*Secret)
		return x.Name == y.Name && y.Reveal() == "" // material never travels
	case *Handle:
		return *x == *b.(*Handle)
	case Float:
		y := b.(Float)
		return x == y || math.IsNaN(float64(x)) && math.IsNaN(float64(y))
	}
	return a.Kind() == b.Kind() && Equal(a, b)
}

func TestToWireForeignHandles(t *testing.T) {
	tests := []struct {
		v    Value
		want string
	}{
		{wireHandle{KClosure, "fn f(x)"}, `{"$":"closure","repr":"fn f(x)"}`},
		{wireHandle{KCommand, "ls -la"}, `{"$":"cmd","repr":"ls -la"}`},
		{wireHandle{KStream, "<stream>"}, `{"$":"stream","label":"<stream>"}`},
		{wireTaskHandle{}, `{"$":"task","id":"task:9","done":true}`},
		{&Builtin{Name: "len"}, `{"$":"closure","repr":"<builtin len>"}`},
		{&Namespace{Name: "m", Members: map[string]Value{"pi": Float(3.5), "e": Int(2)}},
			`{"$":"record","v":{"e":{"$":"int","v":2},"pi":{"$":"float","v":3.5}}}`},
	}
	for _, tt := range tests {
		got, err := ToWire(tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("ToWire(%T) = %s, %v; want %s", tt.v, got, err, tt.want)
		}
	}
}

// wireRow has a record kind but no wire form.
type wireRow struct{}

func (wireRow) Kind() Kind { return KRecord }

func TestToWireErrors(t *testing.T) {
	deep := Value(Nil)
	for i := 0; i <= proto.MaxWireDepth; i++ {
		deep = NewList([]Value{deep})
	}
	tests := []struct {
		name string
		v    Value
	}{
		{"too deep", deep},
		{"year out of range", DateTime{T: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"negative size", Size(-1)},
		{"ragged table", &Table{Cols: []string{"a"}, Data: [][]Value{{Nil}}, N: 2}},
		{"unknown type", wireRow{}},
		{"nested unknown", NewList([]Value{wireRow{}})},
	}
	for _, tt := range tests {
		if b, err := ToWire(tt.v); err == nil {
			t.Errorf("%s: ToWire succeeded: %s", tt.name, b)
		}
	}
	// One level less than too deep encodes and decodes.
	ok := deep.(*List).Items[0]
	b, err := ToWire(ok)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FromWire(b); err != nil {
		t.Fatalf("FromWire at the depth bound: %v", err)
	}
}

func TestFromWireErrors(t *testing.T) {
	tests := []struct {
		in     string
		sentry error
	}{
		{`{"$":"ref","uri":"shoal://out/1","of":"table","n":3}`, ErrElided},
		{`{"$":"list","v":[{"$":"ref","uri":"u","of":"str","n":1}]}`, ErrElided},
		{`{"$":"table","cols":{"a":[]},"n":1}`, proto.ErrColumnLength},
		{`{"$":"datetime","v":"1750000123"}`, proto.ErrBadDateTime},
		{`{"$":"bytes","v":"!!"}`, proto.ErrBadBase64},
		{`{"$":"what"}`, proto.ErrUnknownTag},
		{`{"$":"regex","src":"("}`, nil},
		{`{"$":"outcome","status":0,"ok":true,"signal":null,"out":{"$":"null"},"err":{"$":"int","v":1},"dur_ns":0,"pid":null,"cmd":""}`, nil},
	}
	for _, tt := range tests {
		_, err := FromWire([]byte(tt.in))
		if err == nil || tt.sentry != nil && !errors.Is(err, tt.sentry) {
			t.Errorf("FromWire(%s) = %v, want %v", tt.in, err, tt.sentry)
		}
	}
}

func TestTimeNormalisedOnWire(t *testing.T) {
	b, err := ToWire(Time(-time.Hour))
	if err != nil || string(b) != `{"$":"time","v":"23:00:00"}` {
		t.Fatalf("got %s, %v", b, err)
	}
}

func benchTable(rows int) *Table {
	names := make([]Value, rows)
	sizes := make([]Value, rows)
	kinds := make([]Value, rows)
	mods := make([]Value, rows)
	counts := make([]Value, rows)
	base := time.Date(2026, 7, 16, 9, 30, 0, 0, time.UTC)
	for i := range rows {
		names[i] = Str(fmt.Sprintf("file-%05d.txt", i))
		sizes[i] = Size(i * 137)
		kinds[i] = Str("file")
		mods[i] = DateTime{T: base.Add(time.Duration(i) * time.Second)}
		counts[i] = Int(i)
	}
	return &Table{
		Cols: []string{"name", "size", "type", "modified", "n"},
		Data: [][]Value{names, sizes, kinds, mods, counts},
		N:    rows,
	}
}

func BenchmarkToWireTable(b *testing.B) {
	t := benchTable(10_000)
	out, err := ToWire(t)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	b.ResetTimer()
	buf := make([]byte, 0, len(out))
	for i := 0; i < b.N; i++ {
		if buf, err = AppendWire(buf[:0], t); err != nil {
			b.Fatal(err)
		}
	}
}
