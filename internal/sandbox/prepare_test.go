package sandbox

import (
	"errors"
	"testing"
)

func TestPrepareNothingRestricted(t *testing.T) {
	for _, r := range []Rules{{}, {Hermetic: true, ReadOnly: []string{"relative"}}} {
		c, err := Prepare(r)
		if err != nil || c != nil {
			t.Errorf("Prepare(%+v) = %v, %v; want nothing to apply", r, c, err)
		}
	}
	var c *Confinement
	c.Close() // a nil Confinement closes
}

func TestPrepareHermeticUnsupported(t *testing.T) {
	cases := []struct {
		s     Support
		r     Rules
		dim   string
		apply bool // non-hermetic: still something to apply
	}{
		{Support{ABI: 3, FS: true, Reason: "no TCP"}, Rules{RestrictNet: true, ConnectTCP: []uint16{80}}, "net", false},
		{Support{ABI: 3, FS: true, Reason: "no TCP"}, Rules{RestrictFS: true, RestrictNet: true}, "net", true},
		{Support{Reason: "no Landlock"}, Rules{RestrictFS: true, ReadOnly: []string{"/usr"}}, "fs", false},
		// Partial enforcement is kept without Hermetic (and reported as not enforced).
		{Support{ABI: 2, Reason: "old"}, Rules{RestrictFS: true, RestrictNet: true}, "fs", true},
		{Support{ABI: 7, FS: true, Reason: "no filter"}, Rules{RestrictNet: true}, "net", true},
	}
	for _, c := range cases {
		restore := OverrideSupport(c.s)
		h := c.r
		h.Hermetic = true
		conf, err := Prepare(h)
		var ue *UnenforceableError
		if !errors.As(err, &ue) || !errors.Is(err, ErrUnenforceable) || ue.Dimension != c.dim || ue.Reason != c.s.Reason || conf != nil {
			t.Errorf("hermetic Prepare(%+v) under %+v = %v, %v; want an *UnenforceableError for %s", h, c.s, conf, err, c.dim)
		}
		conf, err = Prepare(c.r)
		switch {
		case err != nil:
			t.Errorf("Prepare(%+v) under %+v: %v", c.r, c.s, err)
		case !c.apply && conf != nil:
			t.Errorf("Prepare(%+v) under %+v: a confinement; want none (nothing enforceable)", c.r, c.s)
		case c.apply && conf == nil && probed().ABI >= abiFSPartial:
			t.Errorf("Prepare(%+v) under %+v: no confinement; want one", c.r, c.s)
		}
		conf.Close()
		restore()
	}
}

func TestPrepareBadRules(t *testing.T) {
	defer OverrideSupport(Support{ABI: 7, FS: true, Net: true})()
	many := make([]string, MaxRoots+1)
	for i := range many {
		many[i] = "/r"
	}
	cases := []Rules{
		{RestrictFS: true, ReadOnly: []string{"relative/path"}},
		{RestrictFS: true, ReadWrite: []string{""}},
		{RestrictFS: true, ReadWrite: []string{"/a\x00b"}},
		{RestrictFS: true, ReadOnly: many},
		{RestrictNet: true, ConnectTCP: make([]uint16, MaxPorts+1)},
	}
	for _, r := range cases {
		_, err := Prepare(r)
		var re *RulesError
		if !errors.As(err, &re) {
			t.Errorf("Prepare(%.60v) = %v, want a *RulesError", r, err)
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
