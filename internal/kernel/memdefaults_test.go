package kernel

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/memlimit"
)

// TestApplyMemoryDefaults: unset memory flags take the derived figures,
// set ones win, a set one above the usable memory is lowered to it with a
// warning, and 0 (unbounded) is kept.
func TestApplyMemoryDefaults(t *testing.T) {
	d := memlimit.Derive(memlimit.Facts{RlimitAS: 4_000_000_000})
	set := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, x := range names {
				if x == n {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		name                  string
		flags                 map[string]int64
		session, kernel, soft int64
		warnings              []string
	}{
		{"defaults", nil, d.SessionBudget, d.KernelBudget, d.SoftLimit, nil},
		{"explicit below", map[string]int64{"session-memory": 64 << 20, "memory-limit": 1 << 30}, 64 << 20, d.KernelBudget, 1 << 30, nil},
		{"explicit above", map[string]int64{"session-memory": 8 << 30, "kernel-memory": 16 << 30}, d.Usable, d.Usable, d.SoftLimit,
			[]string{"--session-memory", "--kernel-memory"}},
		{"explicit unbounded", map[string]int64{"kernel-memory": 0, "memory-limit": 0}, d.SessionBudget, 0, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := DefaultLimits()
			var names []string
			for n, v := range tc.flags {
				names = append(names, n)
				switch n {
				case "session-memory":
					l.SessionMemory = v
				case "kernel-memory":
					l.KernelMemory = v
				case "memory-limit":
					l.MemoryLimit = v
				}
			}
			warnings := ApplyMemoryDefaults(&l, set(names...), d)
			if l.SessionMemory != tc.session || l.KernelMemory != tc.kernel || l.MemoryLimit != tc.soft {
				t.Errorf("session %d kernel %d soft %d, want %d %d %d", l.SessionMemory, l.KernelMemory, l.MemoryLimit, tc.session, tc.kernel, tc.soft)
			}
			if len(warnings) != len(tc.warnings) {
				t.Fatalf("warnings %q, want ones for %q", warnings, tc.warnings)
			}
			for i, w := range tc.warnings {
				if !strings.HasPrefix(warnings[i], w+" ") || !strings.Contains(warnings[i], "rlimit_as") {
					t.Errorf("warning %q does not name %s and the limit's source", warnings[i], w)
				}
			}
		})
	}
}

// TestKernelInfoMemory: kernel.info's memory reports the limits found,
// where the smallest came from, and the bounds in force beside the
// derived ones.
func TestKernelInfoMemory(t *testing.T) {
	d := memlimit.Derive(memlimit.Facts{Cgroup: 3 << 30, Physical: 24 << 30})
	srv := &Server{memFrom: d, limits: DefaultLimits()}
	ApplyMemoryDefaults(&srv.limits, func(n string) bool { return n == "session-memory" }, d)
	m := srv.memoryReport()
	if m.Source != memlimit.SourceCgroup || m.Limit != 3<<30 || m.Usable != 3<<30 || m.Cgroup != 3<<30 || m.Physical != 24<<30 || m.RlimitAS != 0 {
		t.Errorf("memory report %+v", m)
	}
	// --session-memory was set (to the reference 2 GiB, under the usable
	// 3 GiB): in force it stays; derived says what the default was.
	if m.SessionBudget != 2<<30 || m.KernelBudget != 1<<30 || m.SoftLimit != 1536<<20 {
		t.Errorf("in force: session %d kernel %d soft %d", m.SessionBudget, m.KernelBudget, m.SoftLimit)
	}
	if m.Derived["session_budget"] != 512<<20 || m.Derived["kernel_budget"] != 1<<30 || m.Derived["soft_limit"] != 1536<<20 {
		t.Errorf("derived %v", m.Derived)
	}
}

// TestReferenceFiguresAgree: memlimit's ceilings are this package's
// reference defaults.
func TestReferenceFiguresAgree(t *testing.T) {
	if memlimit.MaxSessionBudget != DefaultSessionMemory || memlimit.MaxKernelBudget != DefaultKernelMemory || memlimit.MaxSoftLimit != DefaultMemoryLimit {
		t.Errorf("memlimit ceilings %d %d %d, kernel defaults %d %d %d", memlimit.MaxSessionBudget, memlimit.MaxKernelBudget, memlimit.MaxSoftLimit,
			DefaultSessionMemory, DefaultKernelMemory, DefaultMemoryLimit)
	}
}
