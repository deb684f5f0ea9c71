package conformance

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

func loadSample(t *testing.T) map[string]*Case {
	t.Helper()
	cs, err := LoadFile("testdata/sample.toml")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*Case{}
	for i := range cs {
		m[cs[i].Name] = &cs[i]
	}
	return m
}

func TestLoadFile(t *testing.T) {
	m := loadSample(t)
	if len(m) != 6 {
		t.Fatalf("loaded %d cases, want 6", len(m))
	}
	v := m["value-case"]
	if v.File != "sample" || v.Key() != "sample/value-case" || v.Value == nil || *v.Value != "2" || v.Src != "1 + 1" {
		t.Errorf("value-case loaded as %+v", v)
	}
	if e := m["error-case"]; e.Error != "div_zero" || e.ErrorContains != "zero" {
		t.Errorf("error-case loaded as %+v", e)
	}
	if p := m["parse-case"]; !p.ParseError {
		t.Errorf("parse-case loaded as %+v", p)
	}
	if s := m["skipped-case"]; s.Skip != "not reproducible" {
		t.Errorf("skip = %q", s.Skip)
	}
	if f := m["fixture-case"]; !slices.Equal(f.Fixture, []string{"a.txt", "sub/", "deep/er/b.txt"}) {
		t.Errorf("fixture = %v", f.Fixture)
	}
	if p := m["two-expectations"].Problem; p == "" {
		t.Error("a case with two expectations was not flagged")
	}
}

func TestCheck(t *testing.T) {
	m := loadSample(t)
	tests := []struct {
		name string
		c    string
		v    value.Value
		err  error
		ok   bool
	}{
		{"value matches", "value-case", value.Int(2), nil, true},
		{"value differs", "value-case", value.Int(3), nil, false},
		{"value but error", "value-case", nil, value.Errorf("type_error", "boom"), false},
		{"error matches", "error-case", nil, value.Errorf("div_zero", "division by zero"), true},
		{"error contains in hint", "error-case", nil, value.Errorf("div_zero", "bad").WithHint("divide by non-zero"), true},
		{"error lacks text", "error-case", nil, value.Errorf("div_zero", "bad"), false},
		{"wrong code", "error-case", nil, value.Errorf("type_error", "zero"), false},
		{"error but value", "error-case", value.Int(1), nil, false},
		{"wrapped error", "error-case", nil, errWrap{value.Errorf("div_zero", "zero")}, true},
		{"parse error", "parse-case", nil, &syntax.Error{Msg: "unclosed ("}, true},
		{"runtime not parse", "parse-case", nil, value.Errorf("type_error", "x"), false},
		{"null value renders null", "fixture-case", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, got := Check(m[tt.c], tt.v, tt.err)
			if ok != tt.ok {
				t.Fatalf("Check = %v (%s), want %v", ok, got, tt.ok)
			}
		})
	}
}

type errWrap struct{ err error }

func (e errWrap) Error() string { return "wrapped: " + e.err.Error() }
func (e errWrap) Unwrap() error { return e.err }

func TestRunFixturesPanicsTimeouts(t *testing.T) {
	m := loadSample(t)
	ctx := context.Background()

	dir := t.TempDir()
	var saw []string
	r := Run(ctx, m["fixture-case"], dir, time.Second, func(_ context.Context, d, _ string) (value.Value, error) {
		for _, p := range []string{"a.txt", "sub", "deep/er/b.txt"} {
			if st, err := os.Stat(filepath.Join(d, p)); err == nil {
				saw = append(saw, p+map[bool]string{true: "/", false: ""}[st.IsDir()])
			}
		}
		return value.Nil, nil
	})
	if !r.OK || !slices.Equal(saw, []string{"a.txt", "sub/", "deep/er/b.txt"}) {
		t.Errorf("fixture run: %+v, saw %v", r, saw)
	}

	r = Run(ctx, m["value-case"], t.TempDir(), time.Second, func(context.Context, string, string) (value.Value, error) {
		panic("kaboom")
	})
	if r.OK || !strings.Contains(r.Got, "kaboom") {
		t.Errorf("panic run: %+v", r)
	}

	r = Run(ctx, m["value-case"], t.TempDir(), 10*time.Millisecond, func(ctx context.Context, _, _ string) (value.Value, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	if r.OK || !strings.Contains(r.Got, "go error") {
		t.Errorf("cancelled run: %+v", r)
	}

	r = Run(ctx, m["two-expectations"], t.TempDir(), time.Second, func(context.Context, string, string) (value.Value, error) {
		return value.Int(1), nil
	})
	if r.OK || !strings.Contains(r.Got, "malformed") {
		t.Errorf("malformed case run: %+v", r)
	}
}

func TestMakeFixturesRejectsEscape(t *testing.T) {
	for _, f := range []string{"../x", "/etc/x"} {
		if err := MakeFixtures(t.TempDir(), []string{f}); err == nil {
			t.Errorf("fixture %q accepted", f)
		}
	}
}

func TestRatchetRoundTripAndDiff(t *testing.T) {
	p := filepath.Join(t.TempDir(), "passing.txt")
	if set, err := ReadRatchet(p); err != nil || len(set) != 0 {
		t.Fatalf("missing ratchet: %v, %v", set, err)
	}
	if err := WriteRatchet(p, []string{"b/2", "a/1", "b/2"}); err != nil {
		t.Fatal(err)
	}
	set, err := ReadRatchet(p)
	if err != nil || len(set) != 2 || !set["a/1"] || !set["b/2"] {
		t.Fatalf("read back %v, %v", set, err)
	}
	results := []Result{
		{File: "a", Name: "1", OK: false}, // regressed
		{File: "b", Name: "2", OK: true},  // still passing
		{File: "c", Name: "3", OK: true},  // newly passing
		{File: "d", Name: "4", OK: false}, // still failing
	}
	regressed, fixed := Diff(set, results)
	if !slices.Equal(regressed, []string{"a/1"}) || !slices.Equal(fixed, []string{"c/3"}) {
		t.Fatalf("Diff = %v, %v", regressed, fixed)
	}
}

func TestSummary(t *testing.T) {
	results := []Result{
		{File: "core", Name: "a", OK: true},
		{File: "core", Name: "b", OK: false},
		{File: "fs-builtins-more", Name: "c", OK: true},
		{File: "streams-3", Name: "d", OK: false},
	}
	s := Summarize(results, []Case{{File: "io", Name: "e"}})
	if got, want := s.Line(), "conformance: 2 passed, 2 failed, 1 skipped"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	if got, want := s.SplitLine(), "conformance split: language-core 1/2 passed, host 1/2 passed"; got != want {
		t.Errorf("SplitLine = %q, want %q", got, want)
	}
	var b strings.Builder
	if err := s.WriteFiles(&b); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 4 {
		t.Errorf("WriteFiles wrote %d lines, want 4:\n%s", n, b.String())
	}
	b.Reset()
	if err := WriteReport(&b, results[:1]); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != `{"file":"core","name":"a","ok":true,"want":"","got":""}`+"\n" {
		t.Errorf("report line = %q", got)
	}
}

func TestIsHostFile(t *testing.T) {
	for stem, want := range map[string]bool{
		"dir-stack": true, "fs-builtins": true, "fs-builtins-more": true, "io-feed-more": true,
		"outcome": true, "streams": true, "reef-provider-errors": true, "adapters-pack": true,
		"core": false, "namespaces": false, "strings": false, "glob-more": true, "operators": false,
	} {
		if got := IsHostFile(stem); got != want {
			t.Errorf("IsHostFile(%q) = %v, want %v", stem, got, want)
		}
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("SHOAL_CONFORMANCE_DIR", "")
	dir, isDefault, err := DefaultDir(".")
	if err != nil || !isDefault {
		t.Fatalf("DefaultDir = %q, %v, %v", dir, isDefault, err)
	}
	if !strings.HasSuffix(dir, filepath.Join("shared", "conformance")) {
		t.Errorf("default dir %q", dir)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(dir)), filepath.Base(mustAbs(t, "../..")), "go.mod")); err != nil {
		t.Errorf("default dir %q is not beside the module root: %v", dir, err)
	}
	t.Setenv("SHOAL_CONFORMANCE_DIR", "/elsewhere")
	if dir, isDefault, _ := DefaultDir("."); dir != "/elsewhere" || isDefault {
		t.Errorf("override gave %q, %v", dir, isDefault)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
