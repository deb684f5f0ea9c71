package kernel

import (
	"reflect"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

func TestParsePath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []step
	}{
		{"", nil},
		{".a", []step{{kind: 'f', field: "a"}}},
		{"a.b", []step{{kind: 'f', field: "a"}, {kind: 'f', field: "b"}}},
		{".rows[0].name", []step{{kind: 'f', field: "rows"}, {kind: 'i', index: 0}, {kind: 'f', field: "name"}}},
		{"[2..5]", []step{{kind: 'r', lo: 2, hi: 5}}},
		{`."odd key".x`, []step{{kind: 'f', field: "odd key"}, {kind: 'f', field: "x"}}},
		{"[ 3 ]", []step{{kind: 'i', index: 3}}},
	} {
		got, err := parsePath(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parsePath(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{".", "..a", "[", "[x]", "[-1]", "[1..]", "a b", `."open`, "[1]]", ".a[", "+"} {
		if steps, err := parsePath(bad); err == nil {
			t.Errorf("parsePath(%q) = %+v, want an error", bad, steps)
		}
	}
}

func TestProject(t *testing.T) {
	tbl := &value.Table{Cols: []string{"name", "size"}, N: 3, Data: [][]value.Value{
		{value.Str("a"), value.Str("b"), value.Str("c")},
		{value.Int(1), value.Int(2), value.Int(3)},
	}}
	status := 0
	out := &value.Outcome{Cmd: "ls", Status: &status, Out: tbl}
	for _, tc := range []struct {
		v    value.Value
		path string
		want string
	}{
		{tbl, ".name[2]", `"c"`},
		{tbl, "[1].size", "2"},
		{tbl, ".rows[0].name", `"a"`},
		{tbl, "[1..9].size", "[2, 3]"},
		{out, ".ok", "true"},
		{out, ".cmd", `"ls"`},
		{out, ".size[0]", "1"}, // unknown outcome fields forward to .out
		{out, "[2].name", `"c"`},
	} {
		steps, err := parsePath(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := project(tc.v, steps)
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		if s := value.Inline(got); s != tc.want {
			t.Errorf("%s = %s, want %s", tc.path, s, tc.want)
		}
	}
	for _, path := range []string{".nope", "[3]", ".name.x", ".rows.x"} {
		steps, _ := parsePath(path)
		if v, err := project(tbl, steps); err == nil {
			t.Errorf("%s = %v, want an error", path, v)
		}
	}
}

func TestParseRef(t *testing.T) {
	for in, want := range map[string]int{"out:1": 1, "out:42": 42} {
		if n, ok := parseRef(in); !ok || n != want {
			t.Errorf("parseRef(%q) = %d %v", in, n, ok)
		}
	}
	for _, bad := range []string{"", "out:", "out:0", "out:-1", "out:01", "out:1x", "task:1", "out:99999999999999999999", "OUT:1"} {
		if _, ok := parseRef(bad); ok {
			t.Errorf("parseRef(%q) accepted", bad)
		}
	}
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{".rows[0].name", `."a\"b"[1..2]`, "[", "a.b.c", "[9999999999999999999999]"} {
		f.Add(s)
	}
	tbl := &value.Table{Cols: []string{"a"}, N: 1, Data: [][]value.Value{{value.Int(1)}}}
	f.Fuzz(func(t *testing.T, s string) {
		steps, err := parsePath(s)
		if err != nil {
			return
		}
		if len(steps) > maxPathSteps {
			t.Fatalf("%d steps", len(steps))
		}
		project(tbl, steps) // must not panic
		project(value.NewList([]value.Value{tbl}), steps)
	})
}
