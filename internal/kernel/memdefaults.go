package kernel

import (
	"fmt"

	"github.com/shoalgo/shoal/internal/memlimit"
	"github.com/shoalgo/shoal/proto"
)

// Memory defaults from the real limits. The memory bounds' defaults
// (--session-memory, --kernel-memory, --memory-limit) are not fixed
// figures: memlimit.Derive sizes them from the smallest of the process's
// address-space limit, its cgroup's memory limit and the machine's
// physical memory (docs/kernel.md, "Memory defaults"). A flag set
// explicitly wins, except that a figure above the usable memory
// (memlimit.Derived.Usable) cannot be met and is lowered to it, with a
// warning; 0 (unbounded) is taken as asked.

// memoryFlags are the flags whose defaults are derived.
var memoryFlags = []struct {
	name    string
	field   func(l *Limits) *int64
	derived func(d *memlimit.Derived) int64
}{
	{"session-memory", func(l *Limits) *int64 { return &l.SessionMemory }, func(d *memlimit.Derived) int64 { return d.SessionBudget }},
	{"kernel-memory", func(l *Limits) *int64 { return &l.KernelMemory }, func(d *memlimit.Derived) int64 { return d.KernelBudget }},
	{"memory-limit", func(l *Limits) *int64 { return &l.MemoryLimit }, func(d *memlimit.Derived) int64 { return d.SoftLimit }},
}

// ApplyMemoryDefaults gives l's memory bounds that set does not name (by
// flag name) their derived defaults from d, and lowers the ones it names
// that pass d.Usable to it. It returns a warning for each bound lowered.
func ApplyMemoryDefaults(l *Limits, set func(flag string) bool, d memlimit.Derived) (warnings []string) {
	for _, f := range memoryFlags {
		p := f.field(l)
		switch {
		case !set(f.name):
			*p = f.derived(&d)
		case *p > d.Usable:
			warnings = append(warnings, fmt.Sprintf("--%s %d is above the %d bytes this process can use (%s limit %d); using %d",
				f.name, *p, d.Usable, d.Source, d.Limit, d.Usable))
			*p = d.Usable
		}
	}
	return warnings
}

// memoryReport is kernel.info's "memory": where the server's memory bounds
// come from and the ones in force.
func (s *Server) memoryReport() *proto.KernelMemory {
	d := s.memFrom
	return &proto.KernelMemory{
		Limit: d.Limit, Source: d.Source, Usable: d.Usable,
		RlimitAS: int64(min(d.RlimitAS, 1<<62)), Cgroup: int64(min(d.Cgroup, 1<<62)), Physical: int64(min(d.Physical, 1<<62)),
		SessionBudget: s.limits.SessionMemory, KernelBudget: s.limits.KernelMemory, SoftLimit: s.limits.MemoryLimit,
		Derived: map[string]int64{"session_budget": d.SessionBudget, "kernel_budget": d.KernelBudget, "soft_limit": d.SoftLimit},
	}
}
