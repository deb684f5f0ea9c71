package namespaces

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

func named(a value.Args, name string, v value.Value) value.Args {
	a.Named = append(a.Named, value.NamedArg{Name: name, Value: v})
	return a
}

func TestJSON(t *testing.T) {
	runCases(t, []nsCase{
		{name: "parse object", ns: "json", fn: "parse", args: pos(s(`{"b": 1, "a": {"c": [true, null]}}`)), want: `{b: 1, a: {c: [true, null]}}`},
		{name: "parse string", ns: "json", fn: "parse", args: pos(s(`"hi"`)), want: `"hi"`},
		{name: "parse float", ns: "json", fn: "parse", args: pos(s(`3.5`)), want: `3.5`},
		{name: "parse invalid", ns: "json", fn: "parse", args: pos(s(`{not valid`)), code: "arg_error"},
		{name: "parse trailing", ns: "json", fn: "parse", args: pos(s(`1 2`)), code: "arg_error"},
		{name: "parse missing", ns: "json", fn: "parse", args: pos(), code: "arg_error"},
		{name: "parse non-str", ns: "json", fn: "parse", args: pos(i(5)), code: "arg_error"},
		{name: "parse extra", ns: "json", fn: "parse", args: pos(s("1"), s("2")), code: "arg_error"},
		{name: "stringify compact", ns: "json", fn: "stringify", args: pos(rec("a", i(1), "b", l(i(1), i(2)))), want: `"{\"a\":1,\"b\":[1,2]}"`},
		{name: "stringify keeps order", ns: "json", fn: "stringify", args: pos(rec("z", i(1), "a", i(2))), want: `"{\"z\":1,\"a\":2}"`},
		{name: "stringify null", ns: "json", fn: "stringify", args: pos(value.Nil), want: `"null"`},
		{name: "stringify pretty named", ns: "json", fn: "stringify", args: named(pos(rec("a", l(i(1), i(2)))), "pretty", b(true)), want: `"{\n  \"a\": [\n    1,\n    2\n  ]\n}"`},
		{name: "stringify pretty positional", ns: "json", fn: "stringify", args: pos(rec("a", i(1)), b(true)), contain: "\n"},
		{name: "stringify pretty false", ns: "json", fn: "stringify", args: named(pos(rec("a", i(1))), "pretty", b(false)), want: `"{\"a\":1}"`},
		{name: "stringify pretty non-bool", ns: "json", fn: "stringify", args: named(pos(i(1)), "pretty", i(1)), code: "arg_error"},
		{name: "stringify unknown named", ns: "json", fn: "stringify", args: named(pos(i(1)), "indent", i(1)), code: "arg_error"},
		{name: "stringify missing", ns: "json", fn: "stringify", args: pos(), code: "arg_error"},
	})
}

func TestYAML(t *testing.T) {
	runCases(t, []nsCase{
		{name: "parse mapping", ns: "yaml", fn: "parse", args: pos(s("b: 1\na: 2")), want: `{b: 1, a: 2}`},
		{name: "parse sequence", ns: "yaml", fn: "parse", args: pos(s("- 1\n- 2\n- 3")), want: `[1, 2, 3]`},
		{name: "parse nested", ns: "yaml", fn: "parse", args: pos(s("a:\n  b: 2")), want: `{a: {b: 2}}`},
		{name: "parse scalars", ns: "yaml", fn: "parse", args: pos(s("[1.5, true, null, ~, x, '1', 0x10]")), want: `[1.5, true, null, null, "x", "1", 16]`},
		{name: "parse null value", ns: "yaml", fn: "parse", args: pos(s("a: null")), want: `{a: null}`},
		{name: "parse empty", ns: "yaml", fn: "parse", args: pos(s("")), want: `null`},
		{name: "parse anchors and merge", ns: "yaml", fn: "parse", args: pos(s("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3")), want: `{base: {x: 1, y: 2}, d: {y: 3, x: 1}}`},
		{name: "parse timestamp stays text", ns: "yaml", fn: "parse", args: pos(s("d: 2024-01-02")), want: `{d: "2024-01-02"}`},
		{name: "parse invalid", ns: "yaml", fn: "parse", args: pos(s("a: [1, 2")), code: "arg_error"},
		{name: "parse missing", ns: "yaml", fn: "parse", args: pos(), code: "arg_error"},
		{name: "parse non-str", ns: "yaml", fn: "parse", args: pos(b(true)), code: "arg_error"},
		{name: "stringify record", ns: "yaml", fn: "stringify", args: pos(rec("b", i(1), "a", s("x"))), want: `"b: 1\na: x\n"`},
		{name: "stringify list block", ns: "yaml", fn: "stringify", args: pos(l(i(1), i(2), i(3))), want: `"- 1\n- 2\n- 3\n"`},
		{name: "stringify quotes ambiguous str", ns: "yaml", fn: "stringify", args: pos(rec("a", s("true"), "b", s("1"))), want: `"a: \"true\"\nb: \"1\"\n"`},
		{name: "stringify nested", ns: "yaml", fn: "stringify", args: pos(rec("a", l(rec("n", i(1))))), want: `"a:\n  - n: 1\n"`},
		{name: "stringify floats stay floats", ns: "yaml", fn: "stringify", args: pos(rec("a", f(2), "b", f(0.5))), want: `"a: 2.0\nb: 0.5\n"`},
		{name: "stringify quotes yaml 1.1 bools", ns: "yaml", fn: "stringify", args: pos(l(s("yes"), s("Off"), s("maybe"))), want: `"- \"yes\"\n- \"Off\"\n- maybe\n"`},
		{name: "stringify empty", ns: "yaml", fn: "stringify", args: pos(rec()), want: `"{}\n"`},
		{name: "stringify missing", ns: "yaml", fn: "stringify", args: pos(), code: "arg_error"},
	})
}

func TestYAMLAliasBomb(t *testing.T) {
	doc := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		doc += n + ": &" + n + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = n
	}
	_, err := call(t, "yaml", "parse", pos(s(doc)))
	if ve, ok := err.(*value.Error); !ok || ve.Code != value.CodeTooLarge {
		t.Fatalf("alias bomb: got %v, want too_large", err)
	}
}

func TestTOML(t *testing.T) {
	runCases(t, []nsCase{
		{name: "parse string", ns: "toml", fn: "parse", args: pos(s(`name = "shoal"`)), want: `{name: "shoal"}`},
		{name: "parse keeps order", ns: "toml", fn: "parse", args: pos(s("z = 1\na = 2\n[t]\ny = 1\nb = 2")), want: `{z: 1, a: 2, t: {y: 1, b: 2}}`},
		{name: "parse keeps order of implicit tables", ns: "toml", fn: "parse", args: pos(s("[z.y]\nb = 1\n[a]\nc = 2\n[z]\nx = 3")), want: `{z: {y: {b: 1}, x: 3}, a: {c: 2}}`},
		{name: "parse keeps order of dotted keys", ns: "toml", fn: "parse", args: pos(s("top = 1\nm.n = 2\nb = {y.z = 3, a = 4}")), want: `{top: 1, m: {n: 2}, b: {y: {z: 3}, a: 4}}`},
		{name: "parse array", ns: "toml", fn: "parse", args: pos(s("a = [1, 2, 3]")), want: `{a: [1, 2, 3]}`},
		{name: "parse float stays float", ns: "toml", fn: "parse", args: pos(s("a = 1.5")), want: `{a: 1.5}`},
		{name: "parse array of tables", ns: "toml", fn: "parse", args: pos(s("[[items]]\nname = \"x\"\n[[items]]\nname = \"y\"")), want: `{items: [{name: "x"}, {name: "y"}]}`},
		{name: "parse inline table", ns: "toml", fn: "parse", args: pos(s("p = {y = 1, x = 2}")), want: `{p: {y: 1, x: 2}}`},
		{name: "parse local date", ns: "toml", fn: "parse", args: pos(s("d = 1979-05-27")), want: `{d: "1979-05-27"}`},
		{name: "parse invalid", ns: "toml", fn: "parse", args: pos(s("not = = valid")), code: "arg_error"},
		{name: "parse missing", ns: "toml", fn: "parse", args: pos(), code: "arg_error"},
		{name: "stringify flat", ns: "toml", fn: "stringify", args: pos(rec("a", i(1), "b", s("x"))), want: `"a = 1\nb = \"x\"\n"`},
		{name: "stringify nested", ns: "toml", fn: "stringify", args: pos(rec("t", rec("b", i(1)), "a", f(1.5))), want: `"a = 1.5\n\n[t]\nb = 1\n"`},
		{name: "stringify array of tables", ns: "toml", fn: "stringify", args: pos(rec("items", l(rec("n", i(1)), rec("n", i(2))))), want: `"[[items]]\nn = 1\n\n[[items]]\nn = 2\n"`},
		{name: "stringify inline values", ns: "toml", fn: "stringify", args: pos(rec("a b", l(i(1), s("x")), "f", f(2))), want: `"\"a b\" = [1, \"x\"]\nf = 2.0\n"`},
		{name: "stringify list top", ns: "toml", fn: "stringify", args: pos(l(i(1), i(2))), code: "arg_error"},
		{name: "stringify scalar top", ns: "toml", fn: "stringify", args: pos(i(1)), code: "arg_error"},
		{name: "stringify null", ns: "toml", fn: "stringify", args: pos(rec("a", value.Nil)), code: "arg_error"},
		{name: "stringify missing", ns: "toml", fn: "stringify", args: pos(), code: "arg_error"},
	})
}

func TestCSV(t *testing.T) {
	runCases(t, []nsCase{
		{name: "parse table", ns: "csv", fn: "parse", args: pos(s("a,b\n1,2\n3,4")), want: `[{a: "1", b: "2"}, {a: "3", b: "4"}]`},
		{name: "parse quoted", ns: "csv", fn: "parse", args: pos(s("a,b\n\"x,y\",2\n")), want: `[{a: "x,y", b: "2"}]`},
		{name: "parse crlf", ns: "csv", fn: "parse", args: pos(s("a\r\n1\r\n")), want: `[{a: "1"}]`},
		{name: "parse header only", ns: "csv", fn: "parse", args: pos(s("a,b\n")), want: `[]`},
		{name: "parse ragged", ns: "csv", fn: "parse", args: pos(s("a,b\n1")), code: "arg_error"},
		{name: "parse bad quote", ns: "csv", fn: "parse", args: pos(s("a\n\"x")), code: "arg_error"},
		{name: "parse duplicate header", ns: "csv", fn: "parse", args: pos(s("a,a\n1,2")), code: "arg_error"},
		{name: "parse non-str", ns: "csv", fn: "parse", args: pos(i(1)), code: "arg_error"},
		{name: "stringify records", ns: "csv", fn: "stringify", args: pos(l(rec("a", s("1"), "b", s("x,y")), rec("b", i(2), "c", i(3)))), want: `"a,b\n1,\"x,y\"\n,2\n"`},
		{name: "stringify record", ns: "csv", fn: "stringify", args: pos(rec("n", i(1), "ok", b(true), "z", value.Nil)), want: `"n,ok,z\n1,true,\n"`},
		{name: "stringify table", ns: "csv", fn: "stringify", args: pos(&value.Table{Cols: []string{"x"}, Data: [][]value.Value{{s("p"), s("q")}}, N: 2}), want: `"x\np\nq\n"`},
		{name: "stringify empty list", ns: "csv", fn: "stringify", args: pos(l()), want: `""`},
		{name: "stringify non-table", ns: "csv", fn: "stringify", args: pos(i(5)), code: "type_error"},
		{name: "stringify list of non-records", ns: "csv", fn: "stringify", args: pos(l(i(5))), code: "type_error"},
	})
}

// TestCSVParseIsTable pins the result kind: csv.parse gives a table whose
// cells are all str.
func TestCSVParseIsTable(t *testing.T) {
	got, err := call(t, "csv", "parse", pos(s("n,m\n5,6")))
	if err != nil {
		t.Fatal(err)
	}
	tb, ok := got.(*value.Table)
	if !ok || tb.N != 1 || len(tb.Cols) != 2 {
		t.Fatalf("got %#v, want a 2-column table of 1 row", got)
	}
	for c := range tb.Cols {
		if tb.Data[c][0].Kind() != value.KStr {
			t.Errorf("cell %s is %s, want str", tb.Cols[c], value.TypeName(tb.Data[c][0]))
		}
	}
}

// TestRoundTrips checks that stringify then parse gives the value back,
// and that the YAML reader agrees with the JSON reader on JSON input.
func TestRoundTrips(t *testing.T) {
	v := rec("name", s("shoal"), "n", i(3), "x", f(1.5), "ok", b(false),
		"tags", l(s("a"), s("b")), "nested", rec("deep", rec("k", s("v"))),
		"rows", l(rec("a", i(1)), rec("a", i(2))))
	for _, ns := range []string{"json", "yaml", "toml"} {
		t.Run(ns, func(t *testing.T) {
			text, err := call(t, ns, "stringify", pos(v))
			if err != nil {
				t.Fatal(err)
			}
			back, err := call(t, ns, "parse", pos(text))
			if err != nil {
				t.Fatalf("parse %s: %v", value.Inline(text), err)
			}
			if value.Inline(back) != value.Inline(v) {
				t.Fatalf("round trip through %s:\n got %s\nwant %s", ns, value.Inline(back), value.Inline(v))
			}
		})
	}
	for _, doc := range []string{`{"a": [1, 2.5, "x", null, true], "b": {"c": {}}}`, `[{"a": 1}, {"a": 2}]`, `[]`, `"s"`} {
		j, err1 := call(t, "json", "parse", pos(s(doc)))
		y, err2 := call(t, "yaml", "parse", pos(s(doc)))
		if err1 != nil || err2 != nil || value.Inline(j) != value.Inline(y) || j.Kind() != y.Kind() {
			t.Errorf("json and yaml disagree on %s: %v (%v) vs %v (%v)", doc, j, err1, y, err2)
		}
	}
}

// TestParseErrorMessages pins that decoder messages reach the user once,
// prefixed by the function and format.
func TestParseErrorMessages(t *testing.T) {
	for _, c := range []struct{ ns, text, want string }{
		{"json", `{x`, "json.parse: invalid JSON: invalid character"},
		{"yaml", "a: [1", "yaml.parse: invalid YAML: line 1:"},
		{"toml", "a = = 1", "toml.parse: invalid TOML: line 1"},
		{"csv", "a,b\n1", "csv.parse: invalid CSV: record on line 2"},
	} {
		_, err := call(t, c.ns, "parse", pos(s(c.text)))
		ve, ok := err.(*value.Error)
		if !ok || ve.Code != "arg_error" || !strings.HasPrefix(ve.Msg, c.want) {
			t.Errorf("%s.parse(%q): %v, want arg_error starting %q", c.ns, c.text, err, c.want)
		}
	}
}
