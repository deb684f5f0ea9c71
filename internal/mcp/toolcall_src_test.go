package mcp

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func resolvedTool(t testing.TB, name string) *jsonschema.Resolved {
	t.Helper()
	for _, d := range tools {
		if d.name != name {
			continue
		}
		s, err := d.inputSchema()
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// TestSrcOnlyServesExecAndPlan: shoal_exec and shoal_plan take the
// {"src": s} path and give what toolInput gives; a tool whose src is
// not an unconstrained string, or that has none, does not.
func TestSrcOnlyServesExecAndPlan(t *testing.T) {
	for _, name := range []string{"shoal_exec", "shoal_plan"} {
		r := resolvedTool(t, name)
		so := newSrcOnly(r)
		if so == nil {
			t.Fatalf("%s: no src-only path", name)
		}
		for _, a := range []string{`{"src":"1 + 1"}`, `{"src":"é ✓ <&> \"q\"\n"}`, `{"src":"a","src":"b"}`} {
			got, ok := so.input(json.RawMessage(a))
			want, err := toolInput(json.RawMessage(a), r)
			if !ok || err != nil || string(got) != string(want) {
				t.Errorf("%s %s: src-only %s (%v), toolInput %s (%v)", name, a, got, ok, want, err)
			}
		}
		for _, a := range []string{`{"src":"a","mode":"plan"}`, `{"src":"\u00e9"}`, `{}`, `{"src":1}`, "{\"src\":\"\xff\"}", `{"src":"a"`, `{"src":`, `{"src"`, `{`} {
			if _, ok := so.input(json.RawMessage(a)); ok {
				t.Errorf("%s %s: took the src-only path", name, a)
			}
		}
	}
	if newSrcOnly(resolvedTool(t, "shoal_get")) != nil {
		t.Error("shoal_get has a src-only path")
	}
}

// FuzzSrcOnly: for any string, the src-only path (when it answers)
// gives toolInput's bytes.
func FuzzSrcOnly(f *testing.F) {
	for _, s := range []string{"1 + 1", "é<&>\u2028", "\"\\\n", "\xff\xfe"} {
		f.Add(s)
	}
	r := resolvedTool(f, "shoal_exec")
	so := newSrcOnly(r)
	f.Fuzz(func(t *testing.T, s string) {
		a, err := json.Marshal(map[string]string{"src": s})
		if err != nil {
			t.Skip()
		}
		got, ok := so.input(a)
		if !ok {
			return
		}
		want, err := toolInput(a, r)
		if err != nil || string(got) != string(want) {
			t.Fatalf("%q: src-only %s, toolInput %s (%v)", s, got, want, err)
		}
	})
}
