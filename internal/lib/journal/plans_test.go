package journal_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// TestPlans: journal and history plan as reading the journal alone; undo,
// which reverses an entry chosen at run time, plans as opaque.
func TestPlans(t *testing.T) {
	derive := func(src string) *leash.Plan {
		t.Helper()
		p, err := syntax.Parse(src, syntax.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return leash.Derive(p, leash.Env{Dir: "/w", Registry: registry})
	}
	for _, src := range []string{"history", "journal --limit=3"} {
		p := derive(src)
		if len(p.Effects) != 1 || p.Effects[0].Kind != eval.EffectJournalRead || p.Opaque {
			t.Errorf("%s plans as %+v (opaque %v), want journal_read alone", src, p.Effects, p.Opaque)
		}
	}
	if p := derive("undo 3"); !p.Opaque {
		t.Errorf("undo plans as %+v, not opaque", p.Effects)
	}
}

// TestHelp: `journal --help` lists its value flags from the declaration.
func TestHelp(t *testing.T) {
	in, _ := session(t, host.NewOS(host.AllowAll), nil, nil)
	v, err := in.Eval(context.Background(), "journal --help")
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := v.(value.Str); !ok || !strings.Contains(string(s), "--limit VALUE") {
		t.Errorf("journal --help = %v", v)
	}
}

// TestValueFlagWithoutValueSaysBothForms: a value flag given no value is an
// argument error whose hint names the next-word form and the = form.
func TestValueFlagWithoutValueSaysBothForms(t *testing.T) {
	in, _ := session(t, host.NewOS(host.AllowAll), nil, nil)
	for _, src := range []string{"journal --limit", "journal --limit --failed", "journal --limit --"} {
		_, err := in.Eval(context.Background(), src)
		var ve *value.Error
		if !errors.As(err, &ve) {
			t.Fatalf("%s: err = %v, want a value error", src, err)
		}
		if ve.Code != value.CodeArg || !strings.Contains(ve.Msg, "--limit needs a value") {
			t.Errorf("%s: %s %q, want an arg_error that --limit needs a value", src, ve.Code, ve.Msg)
		}
		if !strings.Contains(ve.Hint, "--limit VALUE") || !strings.Contains(ve.Hint, "--limit=VALUE") {
			t.Errorf("%s: hint %q, want both forms", src, ve.Hint)
		}
	}
}
