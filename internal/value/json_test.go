package value

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestParseJSON(t *testing.T) {
	cases := []struct {
		in, want string // want "" means an arg_error
		kind     Kind
	}{
		{`{"a": 1}`, "{a: 1}", KRecord},
		{`{"b": 1, "a": {"c": [1, 2]}}`, "{b: 1, a: {c: [1, 2]}}", KRecord},
		{`"hi"`, `"hi"`, KStr},
		{`[true, false, null]`, "[true, false, null]", KList},
		{`3.5`, "3.5", KFloat},
		{`3`, "3", KInt},
		{`3.0`, "3", KFloat},
		{`-0`, "-0", KFloat},
		{`1e3`, "1000", KFloat},
		{`9223372036854775807`, "9223372036854775807", KInt},
		{`9223372036854775808`, "9223372036854776000", KFloat},
		{`1e400`, "inf", KFloat},
		{`[]`, "[]", KList},
		{`{}`, "{}", KRecord},
		{`[1, "a"]`, `[1, "a"]`, KList},
		{`[{"a": 1, "b": 2}, {"b": 3, "a": 4}]`, "[{a: 1, b: 2}, {a: 4, b: 3}]", KTable},
		{`[{"a": 1}, {"b": 2}]`, "[{a: 1}, {b: 2}]", KList},
		{`[{"a": 1}, 2]`, "[{a: 1}, 2]", KList},
		{`{"a": 1, "a": 2}`, "{a: 2}", KRecord},
		{`"\u00e9\n"`, `"é\n"`, KStr},
		{` [1] `, "[1]", KList},
		{`{not valid`, "", 0},
		{`[1,]`, "", 0},
		{`[1] [2]`, "", 0},
		{`{"a" 1}`, "", 0},
		{``, "", 0},
		{`nul`, "", 0},
		{`]`, "", 0},
	}
	for _, c := range cases {
		got, err := ParseJSON([]byte(c.in))
		if c.want == "" {
			if vcCode(err) != "arg_error" {
				t.Errorf("ParseJSON(%q) = %v, %v; want arg_error", c.in, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseJSON(%q): %v", c.in, err)
			continue
		}
		if Inline(got) != c.want || got.Kind() != c.kind {
			t.Errorf("ParseJSON(%q) = %s (%s), want %s (%s)", c.in, Inline(got), TypeName(got), c.want, c.kind)
		}
	}
}

func TestJSONText(t *testing.T) {
	status := 7
	cases := []struct {
		in     Value
		want   string
		pretty string // "" means same as compact is not checked
	}{
		{vcR("a", Int(1)), `{"a":1}`, "{\n  \"a\": 1\n}"},
		{vcR("a", Int(1), "b", Int(2)), `{"a":1,"b":2}`, ""},
		{vcR("b", Int(1), "a", Int(2)), `{"b":1,"a":2}`, ""},
		{vcR("a", vcL(Int(1), Int(2))), `{"a":[1,2]}`, "{\n  \"a\": [\n    1,\n    2\n  ]\n}"},
		{Nil, "null", ""},
		{Str("hi"), `"hi"`, ""},
		{Str("<a & b>\t\"q\"\\\x01é"), `"<a & b>\t\"q\"\\\u0001é"`, ""},
		{Str("bad\xff"), `"bad\ufffd"`, ""},
		{Bytes("hi"), `"hi"`, ""},
		{Float(2.5), "2.5", ""},
		{Float(4), "4", ""},
		{Float(1e21), "1e+21", ""},
		{Float(1e-7), "1e-7", ""},
		{Float(math.NaN()), "null", ""},
		{Float(math.Inf(1)), "null", ""},
		{vcDT(t, "2026-07-09T14:00Z"), `"2026-07-09T14:00:00+00:00[UTC]"`, ""},
		{vcTime(10, 30, 0), `"10:30"`, ""},
		{Size(1500), "1500", ""},
		{Duration(2500), "2500", ""},
		{Path("a/b"), `"a/b"`, ""},
		{&Glob{Pattern: "*.go"}, `"*.go"`, ""},
		{&Regex{Source: `\d`}, `"\\d"`, ""},
		{Range{Lo: 1, Hi: 4}, "[1,2,3]", ""},
		{Range{Lo: 1, Hi: 3, Inclusive: true}, "[1,2,3]", ""},
		{vcL(), "[]", "[]"},
		{vcR(), "{}", "{}"},
		{vcT([]string{"a"}, []Value{Int(1)}, []Value{Int(2)}), `[{"a":1},{"a":2}]`, ""},
		{&Outcome{Status: &status, Stdout: []byte("o"), Stderr: []byte("e")}, `{"status":7,"ok":false,"out":"o","err":"e"}`, ""},
		{&Outcome{Signal: "SIGSEGV"}, `{"status":null,"ok":false,"out":"","err":""}`, ""},
		{Errorf("div_zero", "division by zero"), `{"code":"div_zero","msg":"division by zero"}`, ""},
		{NewSecret("tok", "hunter2"), `"secret(tok)"`, ""},
		{&Builtin{Name: "f"}, `"<builtin f>"`, ""},
	}
	for _, c := range cases {
		got, err := JSONText(c.in, false)
		if err != nil || string(got) != c.want {
			t.Errorf("JSONText(%s) = %s, %v; want %s", Inline(c.in), got, err, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("JSONText(%s) = %s is not valid JSON", Inline(c.in), got)
		}
		if c.pretty != "" {
			if p, err := JSONText(c.in, true); err != nil || string(p) != c.pretty {
				t.Errorf("pretty JSONText(%s) = %q, %v; want %q", Inline(c.in), p, err, c.pretty)
			}
		}
	}
	if _, err := JSONText(Range{Lo: 0, Hi: 1 << 40}, false); vcCode(err) != "arg_error" {
		t.Errorf("huge range: err = %v, want arg_error", err)
	}
}

// ToJSON output must also encode with encoding/json (the method library
// uses it), keeping record key order.
func TestToJSONWithEncodingJSON(t *testing.T) {
	j, err := ToJSON(vcR("z", Int(1), "a", vcL(vcR("y", Str("<"), "b", Float(0.5)))))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(b.String()); got != `{"z":1,"a":[{"y":"<","b":0.5}]}` {
		t.Errorf("encoding/json of ToJSON = %s", got)
	}
}

func TestFromJSON(t *testing.T) {
	var decoded any
	if err := json.Unmarshal([]byte(`{"b": [1, 2.5, "x"], "a": null}`), &decoded); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		in   any
		want string
		kind Kind
	}{
		{decoded, `{a: null, b: [1, 2.5, "x"]}`, KRecord}, // map keys sorted
		{float64(3), "3", KInt},
		{float64(3.5), "3.5", KFloat},
		{float64(1e300), "1" + strings.Repeat("0", 300), KFloat},
		{json.Number("12"), "12", KInt},
		{json.Number("1.5"), "1.5", KFloat},
		{int(4), "4", KInt},
		{uint64(1 << 63), "9223372036854776000", KFloat},
		{&JSONObject{Keys: []string{"z", "a"}, Vals: []any{true, nil}}, "{z: true, a: null}", KRecord},
		{Int(9), "9", KInt},
		{nil, "null", KNull},
		{[]any{map[string]any{"a": 1.0}, map[string]any{"a": 2.0}}, "[{a: 1}, {a: 2}]", KTable},
		{struct{}{}, `"{}"`, KStr},
	}
	for _, c := range cases {
		got, err := FromJSON(c.in)
		if err != nil {
			t.Fatalf("FromJSON(%#v): %v", c.in, err)
		}
		if Inline(got) != c.want || got.Kind() != c.kind {
			t.Errorf("FromJSON(%#v) = %s (%s), want %s (%s)", c.in, Inline(got), TypeName(got), c.want, c.kind)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	vals := []Value{
		vcR("a", Int(1), "b", vcL(Int(1), Int(2))),
		vcL(Str("x"), Float(2.5), Bool(false), Nil, vcR()),
		vcT([]string{"name", "n"}, []Value{Str("a"), Int(1)}, []Value{Str("b"), Int(2)}),
		Str("quote \" and \\ and \n"),
	}
	for _, v := range vals {
		text, err := JSONText(v, false)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseJSON(text)
		if err != nil {
			t.Fatalf("ParseJSON(%s): %v", text, err)
		}
		if !Equal(back, v) {
			t.Errorf("round trip %s -> %s -> %s", Inline(v), text, Inline(back))
		}
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a": 1}`, `[1, 2.5, "x", null, true]`, `[{"a": 1}, {"a": 2}]`,
		`"\u00e9"`, `{"a": {"b": [{}]}}`, `1e400`, `[1] [2]`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSON(data)
		if err != nil {
			if vcCode(err) == CodeTooDeep {
				return // valid or not, nested past MaxDepth (TestDecodeDeep)
			}
			if vcCode(err) != "arg_error" {
				t.Fatalf("error %v is not an arg_error", err)
			}
			if json.Valid(data) {
				t.Fatalf("rejected valid JSON %q: %v", data, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		// Encoding and decoding again is stable (up to NaN/Inf, which
		// encode as null, and float/int collapse of integral floats).
		text, err := JSONText(v, false)
		if err != nil {
			t.Fatalf("JSONText(%s): %v", Inline(v), err)
		}
		w, err := ParseJSON(text)
		if err != nil {
			t.Fatalf("re-parse %q: %v", text, err)
		}
		text2, err := JSONText(w, false)
		if err != nil || string(text2) != string(text) {
			t.Fatalf("unstable encoding %q -> %q", text, text2)
		}
	})
}

func BenchmarkParseJSON(b *testing.B) {
	data := []byte(`[{"name": "a.txt", "size": 120, "tags": ["x", "y"]}, {"name": "b.txt", "size": 4096, "tags": []}]`)
	for i := 0; i < b.N; i++ {
		if _, err := ParseJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}
