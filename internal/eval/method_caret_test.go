package eval

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/diag"
)

var updateCarets = flag.Bool("update-carets", false, "rewrite testdata/method-carets.golden")

// TestMethodErrorCarets: an error a method call raises (an unknown
// method or member, its arguments refused) is rendered with the carets
// under the method's name, not under the receiver and the whole call; an
// error raised inside a closure the method called keeps its own place.
// The renderings are a golden file.
func TestMethodErrorCarets(t *testing.T) {
	srcs := []string{
		`"abc".frob()`,
		`math.nope(1)`,
		`[1].take("x")`,
		"let x = [3, 1]\nx?.frob()",
		"[1, 2, 3]\n  .map(n => n * 2)\n  .nope(3)",
		`[1, 2].map(x => x / 0)`,
		`[1].sort_by`,
		`{a: 1}.b`,
		"let r = {a: 1}\nr?.nope",
	}
	var b strings.Builder
	for _, src := range srcs {
		s := newSession(t)
		_, err := s.eval(src)
		if err == nil {
			t.Fatalf("%q raised nothing", src)
		}
		b.WriteString("== " + strings.ReplaceAll(src, "\n", `\n`) + "\n")
		b.WriteString(diag.Format("<repl>", src, err))
	}
	path := filepath.Join("testdata", "method-carets.golden")
	if *updateCarets {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("renderings differ from %s:\n%s", path, got)
	}
}
