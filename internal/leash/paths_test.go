package leash

import "testing"

func TestResolve(t *testing.T) {
	tests := []struct {
		dir, home, in string
		want          string
		ok            bool
	}{
		{"/w", "/h", "a.txt", "/w/a.txt", true},
		{"/w", "/h", "./a/./b", "/w/a/b", true},
		{"/w/x", "/h", "../y/../z", "/w/z", true},
		{"/w", "/h", "../../..", "/", true},
		{"/w", "/h", "/etc//hosts/", "/etc/hosts", true},
		{"/w", "/h", "~", "/h", true},
		{"/w", "/h", "~/", "/h", true},
		{"/w", "/h", "~/a/../b", "/h/b", true},
		{"/w", "/h", "*.go", "/w/*.go", true},
		{"/w", "/h", "src/**/*.rs", "/w/src/**/*.rs", true},
		{"/w", "", "~/a", "~/a", false},
		{"/w", "/h", "~bob/a", "~bob/a", false},
		{"", "/h", "a/../b", "b", false},
		{"", "/h", "/abs", "/abs", true},
	}
	for _, tt := range tests {
		w := &walker{env: Env{Dir: tt.dir, Home: tt.home}, dir: tt.dir, dirOK: tt.dir != ""}
		got, ok := w.resolve(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("resolve(%q) in %q home %q = %q, %v; want %q, %v", tt.in, tt.dir, tt.home, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDeriveNil(t *testing.T) {
	p := Derive(nil, Env{})
	if p.Reversibility != None || p.Opaque || len(p.Effects) != 0 || p.Effects == nil {
		t.Errorf("Derive(nil) = %+v, want an empty plan", p)
	}
}

func TestEmptyEnvMarksRelativeDynamic(t *testing.T) {
	p := deriveWith(t, "cat a.txt", Env{})
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
