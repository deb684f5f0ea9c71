package conformance

import (
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// TestCorpusCodesAreListed: every error code a corpus case expects is a
// code of value.Codes, the list `help errors` and docs/shoal.md show, so a
// client reading the list knows every code the corpus pins.
func TestCorpusCodesAreListed(t *testing.T) {
	cases, _, _ := loadCorpus(t)
	n := 0
	for _, c := range cases {
		if c.Error == "" {
			continue
		}
		n++
		if !value.IsCode(c.Error) {
			t.Errorf("%s: %s expects error %q, which value.Codes does not list", c.File, c.Name, c.Error)
		}
	}
	t.Logf("%d cases expect an error code", n)
}
