package leash_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	. "github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

// deepDir is an absolute directory of about n bytes.
func deepDir(n int) string {
	var b strings.Builder
	b.WriteString("/work")
	for b.Len() < n {
		b.WriteString("/" + strings.Repeat("d", 200))
	}
	return b.String()
}

// deriveIn derives src with the session in dir.
func deriveIn(t *testing.T, src, dir string) *Plan {
	t.Helper()
	prog, err := syntax.Parse(src, syntax.ParseOptions{IsBound: testEnv.IsBound})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	env := testEnv
	env.Dir = dir
	return Derive(prog, env)
}

// TestPlanBoundStopsListing: 20,000 `touch aN` run from a 3.8 kB
// directory name about 150 MB of effects once made absolute. Derivation
// lists up to MaxPlanBytes (its JSON stays under the bound, so the journal
// can store it), then marks the plan opaque with one opaque effect and a
// note, and the reversibility still counts what went unlisted.
func TestPlanBoundStopsListing(t *testing.T) {
	var src strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&src, "touch a%d\n", i)
	}
	src.WriteString("rm --permanent b\n") // irreversible, past the bound
	p := deriveIn(t, src.String(), deepDir(3800))
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > MaxPlanBytes {
		t.Fatalf("the plan encodes to %d bytes, over MaxPlanBytes %d", len(b), MaxPlanBytes)
	}
	if len(b) < MaxPlanBytes/2 {
		t.Fatalf("the plan encodes to %d bytes: it stopped listing far below the bound", len(b))
	}
	if !p.Opaque {
		t.Error("a plan past the bound is not opaque")
	}
	last := p.Effects[len(p.Effects)-1]
	if last.Kind != EffectOpaque || last.Name != "plan" || !last.Dynamic {
		t.Errorf("last effect %+v; want the opaque plan effect", last)
	}
	if want := fmt.Sprintf(" %d MiB ", MaxPlanBytes>>20); !strings.Contains(PlanFullNote, want) {
		t.Errorf("the note %q does not say the bound (%q)", PlanFullNote, want)
	}
	if n := p.Notes[len(p.Notes)-1]; n != PlanFullNote {
		t.Errorf("last note %q; want %q", n, PlanFullNote)
	}
	if p.Reversibility != Irreversible {
		t.Errorf("reversibility %s; want irreversible (the unlisted rm --permanent)", p.Reversibility)
	}
}

// TestPlanUnderBoundListsAll: the same statements, fewer of them, are all
// listed and the plan is not opaque.
func TestPlanUnderBoundListsAll(t *testing.T) {
	var src strings.Builder
	for i := range 300 {
		fmt.Fprintf(&src, "touch a%d\n", i)
	}
	p := deriveIn(t, src.String(), deepDir(3800))
	if p.Opaque {
		t.Fatalf("a plan under the bound is opaque: %v", p.Notes)
	}
	touched := 0
	for _, e := range p.Effects {
		if e.Kind == "fs_write" {
			touched++
		}
	}
	if touched != 300 {
		t.Fatalf("%d fs_write effects listed; want 300", touched)
	}
}

// FuzzPlanBounds: the byte counts derivation charges are never below the
// JSON encoding they stand for.
func FuzzPlanBounds(f *testing.F) {
	for _, s := range []string{"", "a", "<&>", "\x00\x1f", "\"\\", "\u2028\u2029", "\xff\xfe", "é", "日本"} {
		f.Add(s, s+"x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		enc, _ := json.Marshal(a)
		if got := JSONStringBound(a); got < len(enc) {
			t.Fatalf("JSONStringBound(%q) = %d; encodes to %d bytes (valid UTF-8: %v)", a, got, len(enc), utf8.ValidString(a))
		}
		e := Effect{Kind: "fs_write", Path: a, Program: b, Argv: []string{a, b, ""}, Name: b, Dynamic: true}
		enc, _ = json.Marshal(e)
		if got := EffectBound(e); got < len(enc)+1 {
			t.Fatalf("EffectBound = %d; the effect encodes to %d bytes with its comma", got, len(enc)+1)
		}
	})
}
