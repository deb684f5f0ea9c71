package sandbox

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestWrapNothingRestricted(t *testing.T) {
	argv := []string{"/bin/echo", "hi"}
	for _, r := range []Rules{{}, {Hermetic: true, ReadOnly: []string{"relative"}}} {
		got, err := Wrap(r, argv)
		if err != nil || !slices.Equal(got, argv) {
			t.Errorf("Wrap(%+v) = %q, %v; want argv unchanged", r, got, err)
		}
	}
	if _, err := Wrap(Rules{}, nil); err == nil {
		t.Errorf("Wrap of an empty argv succeeded")
	}
}

func TestWrapShape(t *testing.T) {
	defer OverrideSupport(Support{ABI: 7, FS: true, Net: true})()
	r := Rules{RestrictFS: true, ReadOnly: []string{"/usr/", "/lib"}, ConnectTCP: []uint16{443}}
	got, err := Wrap(r, []string{"/bin/echo", "--", "hi"})
	if err != nil {
		t.Fatal(err)
	}
	self, _ := selfExe()
	want := []string{self, TrampolineCommand, "1;F;/usr,/lib;;443;", "--", "/bin/echo", "--", "hi"}
	if !slices.Equal(got, want) {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
	env := []string{"A=1", "LD_PRELOAD=/x.so"}
	cargv, cenv, err := Command(r, []string{"/bin/echo", "hi"}, env)
	if err != nil || len(cargv) != 6 || cargv[2] != "1;FE;/usr,/lib;;443;" || !slices.Equal(cenv, hideEnv(env)) {
		t.Errorf("Command = %q, %q, %v", cargv, cenv, err)
	}
	// Nothing restricted: both unchanged.
	cargv, cenv, err = Command(Rules{}, []string{"/bin/echo"}, env)
	if err != nil || !slices.Equal(cargv, []string{"/bin/echo"}) || !slices.Equal(cenv, env) {
		t.Errorf("Command without restrictions = %q, %q, %v", cargv, cenv, err)
	}
}

func TestWrapHermeticUnsupported(t *testing.T) {
	cases := []struct {
		s    Support
		r    Rules
		dim  string
		wrap bool   // non-hermetic: still wrapped
		enc  string // non-hermetic: the rules passed on
	}{
		{Support{ABI: 3, FS: true, Reason: "no TCP"}, Rules{RestrictNet: true, ConnectTCP: []uint16{80}}, "net", false, ""},
		{Support{ABI: 3, FS: true, Reason: "no TCP"}, Rules{RestrictFS: true, RestrictNet: true}, "net", true, "1;F;;;;"},
		{Support{Reason: "no Landlock"}, Rules{RestrictFS: true, ReadOnly: []string{"/usr"}}, "fs", false, ""},
		// Partial enforcement is kept without Hermetic (and reported as not enforced).
		{Support{ABI: 2, Reason: "old"}, Rules{RestrictFS: true, RestrictNet: true}, "fs", true, "1;F;;;;"},
		{Support{ABI: 7, FS: true, Reason: "no filter"}, Rules{RestrictNet: true}, "net", true, "1;N;;;;"},
	}
	argv := []string{"/bin/true"}
	for _, c := range cases {
		restore := OverrideSupport(c.s)
		h := c.r
		h.Hermetic = true
		_, err := Wrap(h, argv)
		var ue *UnenforceableError
		if !errors.As(err, &ue) || !errors.Is(err, ErrUnenforceable) || ue.Dimension != c.dim || ue.Reason != c.s.Reason {
			t.Errorf("hermetic Wrap(%+v) under %+v = %v; want an *UnenforceableError for %s", h, c.s, err, c.dim)
		}
		got, err := Wrap(c.r, argv)
		switch {
		case err != nil:
			t.Errorf("Wrap(%+v) under %+v: %v", c.r, c.s, err)
		case !c.wrap && !slices.Equal(got, argv):
			t.Errorf("Wrap(%+v) under %+v = %q; want argv unchanged (nothing enforceable)", c.r, c.s, got)
		case c.wrap && (len(got) != 5 || got[2] != c.enc):
			t.Errorf("Wrap(%+v) under %+v = %q; want rules %q", c.r, c.s, got, c.enc)
		}
		restore()
	}
}

func TestWrapBadRules(t *testing.T) {
	defer OverrideSupport(Support{ABI: 7, FS: true, Net: true})()
	many := make([]string, MaxRoots+1)
	for i := range many {
		many[i] = "/r"
	}
	long := []string{"/" + strings.Repeat("é", MaxEncoded/4)}
	cases := []Rules{
		{RestrictFS: true, ReadOnly: []string{"relative/path"}},
		{RestrictFS: true, ReadWrite: []string{""}},
		{RestrictFS: true, ReadWrite: []string{"/a\x00b"}},
		{RestrictFS: true, ReadOnly: many},
		{RestrictNet: true, ConnectTCP: make([]uint16, MaxPorts+1)},
		{RestrictFS: true, ReadOnly: long},
	}
	for _, r := range cases {
		_, err := Wrap(r, []string{"/bin/true"})
		var re *RulesError
		if !errors.As(err, &re) {
			t.Errorf("Wrap(%.60v) = %v, want a *RulesError", r, err)
		}
	}
}

func TestSupportEnforced(t *testing.T) {
	full, fsOnly := Support{ABI: 7, FS: true, Net: true}, Support{ABI: 3, FS: true, Reason: "old"}
	cases := []struct {
		s       Support
		r       Rules
		fs, net bool
	}{
		{full, Rules{}, false, false},
		{full, Rules{RestrictFS: true, RestrictNet: true}, true, true},
		{fsOnly, Rules{RestrictFS: true, RestrictNet: true}, true, false},
		{Support{}, Rules{RestrictFS: true, RestrictNet: true, Hermetic: true}, false, false},
	}
	for _, c := range cases {
		if fs, net := c.s.Enforced(c.r); fs != c.fs || net != c.net {
			t.Errorf("%+v.Enforced(%+v) = %v, %v; want %v, %v", c.s, c.r, fs, net, c.fs, c.net)
		}
	}
}

func TestWrapNeedsTheDispatch(t *testing.T) {
	defer OverrideSupport(Support{ABI: 7, FS: true, Net: true})()
	dispatching.Store(false)
	defer dispatching.Store(true)
	if _, err := Wrap(Rules{RestrictFS: true}, []string{"/bin/true"}); !errors.Is(err, ErrNoTrampoline) {
		t.Errorf("Wrap without the dispatch: %v, want ErrNoTrampoline", err)
	}
	// Nothing to wrap needs no trampoline.
	if got, err := Wrap(Rules{}, []string{"/bin/true"}); err != nil || len(got) != 1 {
		t.Errorf("Wrap of nothing without the dispatch: %q, %v", got, err)
	}
}
