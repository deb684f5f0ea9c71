package namespaces

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// Helpers to build arguments tersely.
func i(n int64) value.Value           { return value.Int(n) }
func f(x float64) value.Value         { return value.Float(x) }
func s(x string) value.Value          { return value.Str(x) }
func b(x bool) value.Value            { return value.Bool(x) }
func l(xs ...value.Value) value.Value { return value.NewList(xs) }

// rec builds a record from alternating keys and values.
func rec(kv ...any) value.Value {
	var keys []string
	var vals []value.Value
	for j := 0; j < len(kv); j += 2 {
		keys = append(keys, kv[j].(string))
		vals = append(vals, kv[j+1].(value.Value))
	}
	return value.NewRecord(keys, vals)
}

func pos(xs ...value.Value) value.Args { return value.Args{Pos: xs} }

// call invokes namespace member ns.fn.
func call(t *testing.T, ns, fn string, a value.Args) (value.Value, error) {
	t.Helper()
	nv, ok := Lookup(ns)
	if !ok {
		t.Fatalf("namespace %q missing", ns)
	}
	m, ok := nv.(*value.Namespace).Members[fn]
	if !ok {
		t.Fatalf("%s.%s missing", ns, fn)
	}
	bi, ok := m.(*value.Builtin)
	if !ok {
		t.Fatalf("%s.%s is %T, not a builtin", ns, fn, m)
	}
	if bi.Name != ns+"."+fn {
		t.Errorf("builtin name %q, want %q", bi.Name, ns+"."+fn)
	}
	return bi.Fn(nil, a)
}

type nsCase struct {
	name    string
	ns, fn  string
	args    value.Args
	want    string // value.Inline of the result
	contain string // alternatively: result is a str containing this
	code    string // alternatively: the error code
}

func runCases(t *testing.T, cases []nsCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := call(t, c.ns, c.fn, c.args)
			if c.code != "" {
				var ve *value.Error
				if !errors.As(err, &ve) {
					t.Fatalf("got %v, %v; want a %s error", got, err, c.code)
				}
				if ve.Code != c.code {
					t.Fatalf("error %q, want code %s", ve.Error(), c.code)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if c.contain != "" {
				str, ok := got.(value.Str)
				if !ok || !strings.Contains(string(str), c.contain) {
					t.Fatalf("got %s, want a str containing %q", value.Inline(got), c.contain)
				}
				return
			}
			if r := value.Inline(got); r != c.want {
				t.Fatalf("got %s, want %s", r, c.want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	want := []string{"config", "csv", "json", "math", "toml", "yaml"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, n := range want {
		v, ok := Lookup(n)
		if !ok {
			t.Fatalf("Lookup(%q) failed", n)
		}
		if ns := v.(*value.Namespace); ns.Name != n {
			t.Errorf("Lookup(%q).Name = %q", n, ns.Name)
		}
	}
	if _, ok := Lookup("http"); ok {
		t.Error("Lookup(http) should fail: not a pure namespace")
	}
}

func TestConfig(t *testing.T) {
	runCases(t, []nsCase{
		{name: "all empty", ns: "config", fn: "all", args: pos(), want: "{}"},
		{name: "get unset", ns: "config", fn: "get", args: pos(s("render")), want: "null"},
		{name: "all with arg", ns: "config", fn: "all", args: pos(i(1)), code: "arg_error"},
		{name: "get missing arg", ns: "config", fn: "get", args: pos(), code: "arg_error"},
		{name: "get non-str", ns: "config", fn: "get", args: pos(i(1)), code: "arg_error"},
	})

	ns := Config(rec("history", i(500), "render", s("table")).(*value.Record))
	all, err := ns.Members["all"].(*value.Builtin).Fn(nil, pos())
	if err != nil || value.Inline(all) != `{history: 500, render: "table"}` {
		t.Fatalf("all() = %v, %v", all, err)
	}
	for key, want := range map[string]string{"history": "500", "missing": "null", "all": "null", "get": "null"} {
		if v := ConfigField(ns, key); value.Inline(v) != want {
			t.Errorf("ConfigField(%q) = %v; want %s", key, v, want)
		}
	}
}
