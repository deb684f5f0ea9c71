package eval

import (
	"bytes"
	"context"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

func TestEvalProgramWithPosition(t *testing.T) {
	for _, tc := range []struct {
		name     string
		src      string
		pos      Position
		wantOut  string // streamed to the run's writer
		wantKind value.Kind
		wantErr  bool
	}{
		{"stmt streams the final command", `printf hello`, PositionStmt, "hello", value.KOutcome, false},
		{"value captures the final command", `printf hello`, PositionValue, "", value.KOutcome, false},
		{"value still streams earlier statements", "printf a\nprintf b", PositionValue, "a", value.KOutcome, false},
		{"stmt raises a failed final command", `fail`, PositionStmt, "partial\n", 0, true},
		{"value returns a failed command's outcome", `fail`, PositionValue, "", value.KOutcome, false},
		{"expressions are unaffected", `1 + 2`, PositionValue, "", value.KInt, false},
	} {
		s := newSession(t)
		var out, errw bytes.Buffer
		p, err := syntax.Parse(tc.src, syntax.ParseOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		v, err := s.in.EvalProgramWith(context.Background(), p, RunOptions{Position: tc.pos, Stdout: &out, Stderr: &errw})
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: err = %v", tc.name, err)
			continue
		}
		if out.String() != tc.wantOut {
			t.Errorf("%s: streamed %q, want %q", tc.name, out.String(), tc.wantOut)
		}
		if s.stdout.Len() != 0 {
			t.Errorf("%s: wrote %q to the session writer", tc.name, s.stdout.String())
		}
		if err == nil && v.Kind() != tc.wantKind {
			t.Errorf("%s: value %s of kind %v", tc.name, value.Inline(v), v.Kind())
		}
		if tc.pos == PositionValue && tc.wantKind == value.KOutcome {
			if o := v.(*value.Outcome); len(o.Stdout) == 0 {
				t.Errorf("%s: outcome captured nothing", tc.name)
			}
		}
	}
}

func TestEvalProgramWithDefaultsToSessionWriters(t *testing.T) {
	s := newSession(t)
	p, err := syntax.Parse("printf x\n1", syntax.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.in.EvalProgramWith(context.Background(), p, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if s.stdout.String() != "x" {
		t.Errorf("session stdout %q", s.stdout.String())
	}
}

func TestIntrospection(t *testing.T) {
	has := func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	}
	if m := testRegistry.MethodNames(value.KPath); !has(m, "stem") || !has(m, "join") {
		t.Errorf("path methods %v lack the evaluator's", m)
	}
	if m := testRegistry.MethodNames(value.KStr); !has(m, "upper") {
		t.Errorf("str methods %v", m)
	}
	if ns := testRegistry.NamespaceNames(); !has(ns, "math") || !has(ns, "json") {
		t.Errorf("namespaces %v", ns)
	}
	if _, ok := testRegistry.LookupNamespace("math"); !ok {
		t.Error("math namespace not found")
	}
	s := newSession(t)
	if _, err := s.eval("let v = 1\nfn f() { 2 }\nalias a = printf x"); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, b := range s.in.Bindings() {
		got[b.Name] = b.Callable
	}
	if c, ok := got["v"]; !ok || c {
		t.Errorf("v binding %v", got)
	}
	if !got["f"] || !got["a"] {
		t.Errorf("f and a should be callable: %v", got)
	}
}
