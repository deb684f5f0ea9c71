package leash_test

import (
	"testing"

	. "github.com/shoalgo/shoal/internal/leash"
)

func TestDeriveNil(t *testing.T) {
	p := Derive(nil, Env{})
	if p.Reversibility != Reversible || p.Opaque || len(p.Effects) != 0 || p.Effects == nil {
		t.Errorf("Derive(nil) = %+v, want an empty plan", p)
	}
}

func TestEmptyEnvMarksRelativeDynamic(t *testing.T) {
	p := deriveWith(t, "cat a.txt", Env{Registry: testRegistry})
	if !p.Opaque || len(p.Effects) != 1 || !p.Effects[0].Dynamic || p.Effects[0].Path != "a.txt" {
		t.Errorf("plan = %+v, want one dynamic fs_read of a.txt", p)
	}
}

func TestFingerprint(t *testing.T) {
	a := derive(t, "rm a.txt")
	b := derive(t, "rm b.txt")
	fa := Fingerprint(a, "rm a.txt")
	if fa != Fingerprint(derive(t, "rm a.txt"), "rm a.txt") {
		t.Error("fingerprint is not deterministic")
	}
	if len(fa) != len("fp:")+16 || fa[:3] != "fp:" {
		t.Errorf("fingerprint %q is not fp: + 16 hex", fa)
	}
	for _, other := range []string{
		Fingerprint(b, "rm b.txt"),
		Fingerprint(a, "rm  a.txt"),
		Fingerprint(derive(t, "rm --permanent a.txt"), "rm a.txt"),
		Fingerprint(nil, "rm a.txt"),
	} {
		if other == fa {
			t.Errorf("distinct plans share fingerprint %s", fa)
		}
	}
}
