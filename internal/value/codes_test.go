package value_test

import (
	"regexp"
	"testing"

	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/value"
)

// TestCodesTable: each code of value.Codes appears once, is a lower-case
// snake_case word, and has a meaning and the operations that raise it.
func TestCodesTable(t *testing.T) {
	word := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, c := range value.Codes() {
		if seen[c.Name] {
			t.Errorf("%s is listed twice", c.Name)
		}
		seen[c.Name] = true
		if !word.MatchString(c.Name) {
			t.Errorf("%q is not a snake_case code", c.Name)
		}
		if c.Meaning == "" || c.RaisedBy == "" {
			t.Errorf("%s lacks its meaning or what raises it", c.Name)
		}
		if !value.IsCode(c.Name) {
			t.Errorf("IsCode(%q) is false", c.Name)
		}
	}
	if value.IsCode("no_such_code") {
		t.Error(`IsCode("no_such_code") is true`)
	}
}

// TestLeafCodesAreTheTable: reef and budget sit below value in the
// layering (trust, events and tasks import them without value), so they
// keep constants of their own for the codes they raise; each must be the
// value constant of the same code.
func TestLeafCodesAreTheTable(t *testing.T) {
	pairs := []struct{ leaf, table string }{
		{budget.CodeQuotaExceeded, value.CodeQuotaExceeded},
		{reef.CodeUnlocked, value.CodeReefUnlocked},
		{reef.CodeDrift, value.CodeReefDrift},
		{reef.CodeConflict, value.CodeReefConflict},
		{reef.CodeNotFound, value.CodeReefNotFound},
		{reef.CodeProvider, value.CodeReefProvider},
		{reef.CodeLockPath, value.CodeReefLockPath},
		{reef.CodeUntrusted, value.CodeReefUntrusted},
	}
	for _, p := range pairs {
		if p.leaf != p.table {
			t.Errorf("leaf constant %q differs from value's %q", p.leaf, p.table)
		}
	}
}
