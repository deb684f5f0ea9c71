package sysmon

import (
	"slices"
	"testing"
)

func TestPlan(t *testing.T) {
	setting := "GODEBUG=schedtrace=2147483647"
	for _, tc := range []struct {
		name string
		env  []string
		want []string // the re-execution's environment; nil: none
	}{
		{"no GODEBUG", []string{"A=1", "HOME=/h"},
			[]string{"A=1", "HOME=/h", setting, MarkerEnv + "=unset"}},
		{"empty GODEBUG", []string{"GODEBUG=", "A=1"},
			[]string{"A=1", setting, MarkerEnv + "=set:"}},
		{"other settings kept first", []string{"GODEBUG=madvdontneed=0,gctrace=1"},
			[]string{"GODEBUG=madvdontneed=0,gctrace=1,schedtrace=2147483647", MarkerEnv + "=set:madvdontneed=0,gctrace=1"}},
		{"a second GODEBUG is dropped, as the runtime ignores it", []string{"GODEBUG=a=1", "B=2", "GODEBUG=c=3"},
			[]string{"B=2", "GODEBUG=a=1,schedtrace=2147483647", MarkerEnv + "=set:a=1"}},
		{"schedtrace chosen", []string{"GODEBUG=gctrace=1,schedtrace=0"}, nil},
		{"schedtrace chosen alone", []string{"GODEBUG=schedtrace=1000"}, nil},
		{"a key that only ends in schedtrace", []string{"GODEBUG=xschedtrace=1"},
			[]string{"GODEBUG=xschedtrace=1,schedtrace=2147483647", MarkerEnv + "=set:xschedtrace=1"}},
		{"a name inherited is dropped", []string{NameEnv + "=x", "A=1"},
			[]string{"A=1", setting, MarkerEnv + "=unset"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := plan(tc.env, "")
			if s.restore {
				t.Fatalf("plan(%q) restores; it was not re-executed", tc.env)
			}
			if !slices.Equal(s.reexec, tc.want) {
				t.Errorf("plan(%q).reexec = %q, want %q", tc.env, s.reexec, tc.want)
			}
		})
	}
}

// TestPlanRoundTrip: the re-executed run's plan puts GODEBUG back as the
// first run had it, and knows the runtime was started with the setting.
func TestPlanRoundTrip(t *testing.T) {
	for _, env := range [][]string{
		{"A=1"},
		{"GODEBUG="},
		{"GODEBUG=gctrace=1", "A=1"},
		{"GODEBUG=x=set:y"},
	} {
		first := plan(env, "shoal-kernel")
		if first.reexec == nil {
			t.Fatalf("plan(%q): no re-execution", env)
		}
		if g, _ := lookup(first.reexec, "GODEBUG"); !names(g, "schedtrace") {
			t.Fatalf("plan(%q) re-executes with GODEBUG %q, no schedtrace", env, g)
		}
		second := plan(first.reexec, "exe")
		if !second.restore {
			t.Fatalf("plan(%q) after re-execution = %+v, want a restore", first.reexec, second)
		}
		if second.name != "shoal-kernel" {
			t.Errorf("the re-executed run is named %q, want the first run's %q", second.name, "shoal-kernel")
		}
		godebug, had := lookup(env, "GODEBUG")
		if second.godebug != godebug || second.hadGodebug != had {
			t.Errorf("restores GODEBUG %q (set %v), want %q (set %v)", second.godebug, second.hadGodebug, godebug, had)
		}
	}
}

// A marker is always the second run's, whatever GODEBUG says: a marker
// set by hand never makes the kernel re-execute again (no loop).
func TestPlanMarkerNeverReexecutes(t *testing.T) {
	for _, env := range [][]string{
		{MarkerEnv + "=unset", "GODEBUG=gctrace=1"},
		{MarkerEnv + "=set:a=1"},
		{MarkerEnv + "=garbage"},
	} {
		if s := plan(env, ""); !s.restore || s.reexec != nil {
			t.Errorf("plan(%q) = %+v, want a restore and no re-execution", env, s)
		}
	}
}
