package format

import (
	"testing"

	"github.com/shoalgo/shoal/internal/conformance"
	"github.com/shoalgo/shoal/internal/corpusdir"
	"github.com/shoalgo/shoal/internal/syntax"
)

// corpusSources returns the source of every corpus case that parses.
func corpusSources(tb testing.TB) []string {
	tb.Helper()
	cases, err := conformance.LoadDir(corpusdir.ForTest(tb))
	if err != nil {
		tb.Fatal(err)
	}
	var srcs []string
	for _, c := range cases {
		if _, err := syntax.Parse(c.Src, parseOptions); err == nil {
			srcs = append(srcs, c.Src)
		}
	}
	return srcs
}

// TestCorpus: every corpus source that parses formats idempotently to the
// same tree with the same comments.
func TestCorpus(t *testing.T) {
	srcs := corpusSources(t)
	if len(srcs) < 500 {
		t.Fatalf("only %d corpus sources parse", len(srcs))
	}
	changed := 0
	for _, src := range srcs {
		got, err := Source([]byte(src))
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if string(got) != src {
			changed++
		}
		assertStable(t, []byte(src), got)
		assertSpaced(t, src)
	}
	t.Logf("%d corpus sources formatted, %d changed", len(srcs), changed)
}

// assertSpaced checks that src's canonical layout passes the safety net
// itself, without Source's fall back to the source's own spacing.
func assertSpaced(t *testing.T, src string) {
	t.Helper()
	prog, err := parse(src)
	if err != nil {
		t.Fatal(err)
	}
	out := layout(src, prog, true)
	if err := check(prog, out); err != nil {
		t.Errorf("the canonical spacing of\n%s\nis refused: %v\n%s", src, err, out)
	}
}
