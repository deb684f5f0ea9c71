package namespaces

import (
	"errors"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// TestMain caps the goroutine stack at 64 MiB, so a decoder or walker
// that recursed once per level of a hostile document fails fast here
// rather than after eating Go's default gigabyte.
func TestMain(m *testing.M) {
	debug.SetMaxStack(64 << 20)
	os.Exit(m.Run())
}

const hugeDepth = 1_000_000

func nest(open, leaf, close string, n int) string {
	return strings.Repeat(open, n) + leaf + strings.Repeat(close, n)
}

func wantErrCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	var e *value.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("%s: got %v, want %s", what, err, code)
	}
}

// TestParseDeep feeds each parser documents nested far past maxDepth,
// balanced and not, in every way its format nests, and documents just
// inside the bound.
func TestParseDeep(t *testing.T) {
	dotted := strings.TrimSuffix(strings.Repeat("a.", hugeDepth), ".")
	cases := []struct {
		name, ns, doc, code string // code "": parses
	}{
		{"json open brackets", "json", strings.Repeat("[", 4_000_000), value.CodeTooDeep},
		{"json arrays", "json", nest("[", "1", "]", hugeDepth), value.CodeTooDeep},
		{"json objects", "json", nest(`{"a":`, "1", "}", hugeDepth), value.CodeTooDeep},
		{"json at the bound", "json", nest("[", "1", "]", maxDepth), ""},
		{"json past the bound", "json", nest("[", "1", "]", maxDepth+1), value.CodeTooDeep},

		{"toml open brackets", "toml", "a = " + strings.Repeat("[", 4_000_000), value.CodeTooDeep},
		{"toml arrays", "toml", "a = " + nest("[", "1", "]", hugeDepth), value.CodeTooDeep},
		{"toml inline tables", "toml", "a = " + nest("{b = ", "1", "}", hugeDepth), value.CodeTooDeep},
		{"toml dotted key", "toml", dotted + " = 1", value.CodeTooDeep},
		{"toml header", "toml", "[" + dotted + "]\nx = 1", value.CodeTooDeep},
		{"toml array of tables", "toml", "[[" + dotted + "]]\nx = 1", value.CodeTooDeep},
		{"toml header then keys", "toml", "[" + strings.TrimSuffix(strings.Repeat("a.", 300), ".") + "]\n" +
			strings.TrimSuffix(strings.Repeat("b.", 300), ".") + " = 1", value.CodeTooDeep},
		{"toml brackets in strings", "toml", `a = "` + strings.Repeat("[", 100_000) + `"` + "\nb = '''" + strings.Repeat("{", 100_000) + "'''", ""},
		{"toml brackets in comments", "toml", "# " + strings.Repeat("[", 100_000) + "\na = 1", ""},
		{"toml floats in an array", "toml", "a = [" + strings.Repeat("1.5, ", 10_000) + "1.5]", ""},
		{"toml at the bound", "toml", "a = " + nest("[", "1", "]", maxDepth-2), ""},
		{"toml long dotted keys", "toml", longKeys(4000, 250), value.CodeTooLarge},
		{"toml a long dotted key", "toml", longKeys(1, 250), ""},

		{"yaml open flow", "yaml", strings.Repeat("[", 4_000_000), value.CodeTooDeep},
		{"yaml flow sequences", "yaml", nest("[", "1", "]", hugeDepth), value.CodeTooDeep},
		{"yaml flow mappings", "yaml", nest("{a: ", "1", "}", hugeDepth), value.CodeTooDeep},
		{"yaml compact block sequences", "yaml", strings.Repeat("- ", hugeDepth) + "1", value.CodeTooDeep},
		{"yaml past the bound", "yaml", nest("[", "1", "]", maxDepth+1), value.CodeTooDeep},
		{"yaml at the bound", "yaml", nest("[", "1", "]", maxDepth), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := call(t, c.ns, "parse", pos(s(c.doc)))
			if c.code == "" {
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				if v == nil {
					t.Fatal("parse gave no value")
				}
				return
			}
			wantErrCode(t, c.ns+".parse", err, c.code)
		})
	}
}

// longKeys is a TOML document of n distinct dotted keys of parts parts.
func longKeys(n, parts int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("k" + strings.Repeat("x", i%10) + string(rune('a'+i%26)) + strings.Repeat(".a", parts-2) + ".z" + strconv.Itoa(i) + " = 1\n")
	}
	return b.String()
}

// TestTOMLNesting checks the pre-scan's estimate on small documents: it
// must never be below the real depth.
func TestTOMLNesting(t *testing.T) {
	cases := []struct {
		doc  string
		real int // nesting of the decoded document, the root map at 0
	}{
		{"a = 1", 1},
		{"a.b.c = 1", 3},
		{"[t]\nx = [1, [2]]", 4},
		{"[a.b]\nc.d = {e = [1]}", 6},
		{"[[a]]\nb = 1", 3},
		{`a = "]]]]" # [[[[`, 1},
		{"a = '''\n[[[\n'''\nb = \"\"\"\\\"[[\"\"\"", 1},
		{"a = [\n  [1],\n  [2, [3]],\n]", 4},
	}
	for _, c := range cases {
		if got := tomlNesting(c.doc); got < c.real {
			t.Errorf("tomlNesting(%q) = %d, below the real depth %d", c.doc, got, c.real)
		}
		if _, err := call(t, "toml", "parse", pos(s(c.doc))); err != nil {
			t.Errorf("toml.parse(%q): %v", c.doc, err)
		}
	}
}

// TestStringifyDeep checks that every encoder fails a value nested a
// million deep with too_deep, and csv, which renders cells inline, cuts
// such a cell instead.
func TestStringifyDeep(t *testing.T) {
	var deep value.Value = value.Int(1)
	for i := 0; i < hugeDepth; i++ {
		deep = value.NewRecord([]string{"a"}, []value.Value{value.NewList([]value.Value{deep})})
	}
	for _, ns := range []string{"json", "yaml", "toml"} {
		_, err := call(t, ns, "stringify", pos(deep))
		wantErrCode(t, ns+".stringify", err, value.CodeTooDeep)
	}
	tab := &value.Table{Cols: []string{"x"}, Data: [][]value.Value{{deep}}, N: 1}
	out, err := call(t, "csv", "stringify", pos(tab))
	if err != nil {
		t.Fatalf("csv.stringify: %v", err)
	}
	if text := string(out.(value.Str)); !strings.Contains(text, "…") || len(text) > 64*maxDepth {
		t.Fatalf("csv.stringify of a deep cell: %d bytes", len(text))
	}
}

// TestStringifyShared checks that a value standing for 2^40 leaves through
// shared parts fails each encoder with too_large rather than exhausting
// memory.
func TestStringifyShared(t *testing.T) {
	var v value.Value = value.Str(strings.Repeat("x", 64))
	for i := 0; i < 40; i++ {
		v = value.NewRecord([]string{"a", "b"}, []value.Value{v, v})
	}
	for _, ns := range []string{"json", "yaml", "toml"} {
		_, err := call(t, ns, "stringify", pos(v))
		wantErrCode(t, ns+".stringify", err, value.CodeTooLarge)
	}
}
