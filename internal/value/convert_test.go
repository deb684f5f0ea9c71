package value

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
)

func TestCoerce(t *testing.T) {
	cases := []struct {
		name    string
		in      Value
		typ     string
		args    []string
		want    string // Inline of the result
		kind    Kind
		code    string
		contain string
	}{
		{"int word", Str("5"), "int", nil, "5", KInt, "", ""},
		{"negative int word", Str("-5"), "int", nil, "-5", KInt, "", ""},
		{"hex int word", Str("0xFF"), "int", nil, "255", KInt, "", ""},
		{"underscore int word", Str("1_000"), "int", nil, "1000", KInt, "", ""},
		{"leading zero is decimal", Str("010"), "int", nil, "10", KInt, "", ""},
		{"bad int word", Str("abc"), "int", nil, "", 0, "arg_error", `expected int, got "abc"`},
		{"float text to int", Str("3.5"), "int", nil, "", 0, "arg_error", "expected int"},
		{"double sign", Str("--5"), "int", nil, "", 0, "arg_error", ""},
		{"float word", Str("2.5"), "float", nil, "2.5", KFloat, "", ""},
		{"int word to float", Str("3"), "float", nil, "3", KFloat, "", ""},
		{"bad float", Str("x1"), "float", nil, "", 0, "arg_error", "expected float"},
		{"bool true", Str("true"), "bool", nil, "true", KBool, "", ""},
		{"bool false", Str("false"), "bool", nil, "false", KBool, "", ""},
		{"bool bad", Str("yes"), "bool", nil, "", 0, "arg_error", "expected bool"},
		{"path", Str("a.txt"), "path", nil, "a.txt", KPath, "", ""},
		{"glob", Str("*.txt"), "glob", nil, "*.txt", KGlob, "", ""},
		{"regex", Str(`\d+`), "regex", nil, `re"\d+"`, KRegex, "", ""},
		{"bad regex", Str(`(`), "regex", nil, "", 0, "arg_error", "expected regex"},
		{"size literal", Str("1.5mb"), "size", nil, "1.5mb", KSize, "", ""},
		{"size bytes", Str("2048"), "size", nil, "2.05kb", KSize, "", ""},
		{"size negative", Str("-1"), "size", nil, "", 0, "arg_error", "expected size"},
		{"duration literal", Str("250ms"), "duration", nil, "250ms", KDuration, "", ""},
		{"duration compound", Str("1h30m"), "duration", nil, "1h30m", KDuration, "", ""},
		{"duration bare seconds", Str("90"), "duration", nil, "1m30s", KDuration, "", ""},
		{"duration int seconds", Int(5), "duration", nil, "5s", KDuration, "", ""},
		{"duration int overflow", Int(1 << 62), "duration", nil, "", 0, "overflow", ""},
		{"duration bad", Str("soon"), "duration", nil, "", 0, "arg_error", `got "soon"`},
		{"time", Str("10:00am"), "time", nil, "10:00", KTime, "", ""},
		{"time bad", Str("25:00"), "time", nil, "", 0, "arg_error", "expected time"},
		{"datetime", Str("2026-07-09T14:00Z"), "datetime", nil, "2026-07-09T14:00:00Z", KDateTime, "", ""},
		{"datetime bad", Str("tomorrow"), "datetime", nil, "", 0, "arg_error", "expected datetime"},
		{"str identity", Str("hello"), "str", nil, `"hello"`, KStr, "", ""},
		{"any", Str("x"), "any", nil, `"x"`, KStr, "", ""},
		{"unknown type", Str("x"), "widget", nil, `"x"`, KStr, "", ""},
		{"word to record", Str("x"), "record", nil, "", 0, "arg_error", "expected record"},
		{"typed passes through", Int(5), "str", nil, "5", KInt, "", ""},
		{"path to str passes", Path("a"), "str", nil, "a", KPath, "", ""},
		{"optional null", Nil, "int?", nil, "null", KNull, "", ""},
		{"optional word", Str("4"), "int?", nil, "4", KInt, "", ""},
		{"list int elements", vcL(Str("2"), Str("3")), "list", []string{"int"}, "[2, 3]", KList, "", ""},
		{"list native elements", vcL(Int(2), Int(3)), "list", []string{"int"}, "[2, 3]", KList, "", ""},
		{"list mixed elements", vcL(Int(2), Str("3")), "list", []string{"int"}, "[2, 3]", KList, "", ""},
		{"list element failure", vcL(Str("nope")), "list", []string{"int"}, "", 0, "arg_error", `expected int, got "nope"`},
		{"list str", vcL(Str("a"), Str("b")), "list", []string{"str"}, `["a", "b"]`, KList, "", ""},
		{"list nested", vcL(vcL(Str("1"))), "list", []string{"list<int>"}, "[[1]]", KList, "", ""},
		{"word to list", Str("7"), "list", []string{"int"}, "[7]", KList, "", ""},
		{"list duration ints", vcL(Int(1), Str("2m")), "list", []string{"duration"}, "[1s, 2m]", KList, "", ""},
	}
	for _, c := range cases {
		got, err := Coerce(c.in, c.typ, c.args)
		if c.code != "" {
			if vcCode(err) != c.code {
				t.Errorf("%s: err = %v, want %s", c.name, err, c.code)
			} else if c.contain != "" && !strings.Contains(err.Error(), c.contain) {
				t.Errorf("%s: error %q lacks %q", c.name, err, c.contain)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: unexpected error %v", c.name, err)
			continue
		}
		if Inline(got) != c.want || got.Kind() != c.kind {
			t.Errorf("%s: got %s (%s), want %s (%s)", c.name, Inline(got), TypeName(got), c.want, c.kind)
		}
	}
}

func TestCoerceListUnchangedIsShared(t *testing.T) {
	l := vcL(Int(1), Int(2))
	got, err := Coerce(l, "list", []string{"int"})
	if err != nil {
		t.Fatal(err)
	}
	if got != Value(l) {
		t.Error("a list needing no coercion should be returned as is")
	}
	orig := vcL(Int(1), Str("2"))
	if _, err := Coerce(orig, "list", []string{"int"}); err != nil {
		t.Fatal(err)
	}
	if orig.Items[1] != Value(Str("2")) {
		t.Error("coercion modified its input list")
	}
}

func TestCoerceType(t *testing.T) {
	typ := &syntax.TypeExpr{Name: "list", Args: []*syntax.TypeExpr{{Name: "int"}}}
	got, err := CoerceType(vcL(Str("1")), typ)
	if err != nil || Inline(got) != "[1]" {
		t.Errorf("CoerceType list<int> = %v, %v", got, err)
	}
	got, err = CoerceType(Nil, &syntax.TypeExpr{Name: "int", Optional: true})
	if err != nil || got != Nil {
		t.Errorf("CoerceType int? null = %v, %v", got, err)
	}
	if got, err := CoerceType(Str("x"), nil); err != nil || got != Value(Str("x")) {
		t.Errorf("CoerceType nil annotation = %v, %v", got, err)
	}
}

func TestParseTypeSpec(t *testing.T) {
	cases := map[string]string{
		"int":              "int",
		"list<int>":        "list<int>",
		" list < path > ":  "list<path>",
		"str?":             "str?",
		"list<list<int>>?": "list<list<int>>?",
		"map<str, int>":    "map<str, int>",
		"list<int":         "list<int>",
		"list<int>>":       "list<int>>", // trailing junk: kept raw
		"":                 "",
		"outcome<record>":  "outcome<record>",
		"list<list<int>?>": "list<list<int>?>",
		"int??":            "int??",
	}
	for in, want := range cases {
		if got := specText(ParseTypeSpec(in)); got != want {
			t.Errorf("ParseTypeSpec(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseIntWord(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"42", 42, true},
		{"-7", -7, true},
		{"+7", 7, true},
		{"0x10", 16, true},
		{"0o755", 493, true},
		{"0b1010", 10, true},
		{"1_000_000", 1000000, true},
		{"007", 7, true},
		{"_1", 0, false},
		{"1_", 0, false},
		{"1__0", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"+-1", 0, false},
		{"9223372036854775808", 0, false},
		{"-9223372036854775808", -9223372036854775808, true},
		{"1e3", 0, false},
	}
	for _, c := range cases {
		got, ok := ParseIntWord(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("ParseIntWord(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestTruthy(t *testing.T) {
	zero, one := 0, 1
	cases := []struct {
		in   Value
		want bool
		err  bool
	}{
		{Bool(true), true, false},
		{Bool(false), false, false},
		{&Outcome{Status: &zero}, true, false},
		{&Outcome{Status: &one}, false, false},
		{&Outcome{Signal: "SIGSEGV"}, false, false},
		{vcL(Int(1)), false, true},
		{Int(0), false, true},
		{Str(""), false, true},
		{Nil, false, true},
	}
	for _, c := range cases {
		got, err := Truthy(c.in)
		if c.err {
			if vcCode(err) != "type_error" || !strings.Contains(err.Error(), "no truthiness") {
				t.Errorf("Truthy(%s) err = %v, want type_error with no truthiness", Inline(c.in), err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Truthy(%s) = %v, %v; want %v", Inline(c.in), got, err, c.want)
		}
	}
}
