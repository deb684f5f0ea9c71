// Package memlimit finds how much memory the kernel process may really use
// and derives its default memory bounds from it. Three limits apply to a
// process: its address-space limit (RLIMIT_AS), the memory limit of its
// cgroup (v2 memory.max, v1 memory.limit_in_bytes, the smallest along the
// path to the hierarchy's root) and the machine's physical memory. Derive
// turns each into the memory the Go heap may use under it, takes the
// smallest, and sizes the soft memory limit and the kernel-wide and
// per-session memory budgets as fixed shares of that, never above the
// figures chosen for the reference machine (2 cores, 24 GiB).
//
// The package reads /proc, /sys and getrlimit (Detect) and does nothing
// else of the operating system; Derive is pure.
package memlimit

// Where the smallest limit came from, as kernel.info reports it.
const (
	SourceRlimitAS = "rlimit_as"
	SourceCgroup   = "cgroup"
	SourcePhysical = "physical"
	// SourceNone: no limit was found (physical memory unreadable and no
	// other limit); the reference machine's figures apply.
	SourceNone = "none"
)

// The formula's constants (docs/kernel.md, "Memory defaults").
const (
	// VirtualReserve is the address space a shoal-kernel uses beyond its
	// Go heap, taken off RLIMIT_AS before anything else. Measured on
	// linux/amd64 with a pure-Go build: VmSize is 1,279,504 kB (1.22 GiB)
	// at idle with a resident set of 17 MiB (the runtime's reservations
	// for its page-allocator summaries and heap index, mapped PROT_NONE,
	// ~1.1 GiB; the binary; the first heap arena), and VmSize minus VmRSS
	// stays at 1.2 GiB while sessions keep 1.9 GiB of lists, so the heap
	// maps about what it holds. 1.25 GiB is that figure with a little
	// over; what else grows (thread stacks, SQLite's allocations, which
	// modernc.org/libc maps outside the Go heap, heap mapped beyond the
	// soft limit) is what the soft limit's share leaves.
	VirtualReserve = 1280 << 20
	// MinUsable is the least usable memory Derive assumes, so that a tiny
	// limit still gives budgets a kernel can answer with (the kernel
	// itself may not start under such a limit).
	MinUsable = 256 << 20

	// The shares of the usable memory under a cgroup or physical memory,
	// which the programs sessions run share with the kernel: the soft
	// memory limit is half of it (the rest is theirs, the collector's
	// headroom and what the heap maps beyond what is live), the
	// kernel-wide budget a third. One session's budget is half the
	// kernel's (so at least two sessions can fill theirs).
	SoftLimitDiv     = 2
	KernelBudgetDiv  = 3
	SessionBudgetDiv = 2
	// Under RLIMIT_AS the address space is the kernel's alone (its
	// programs have their own): the soft limit is three quarters of the
	// usable memory (the last quarter is headroom for what the heap maps
	// beyond the limit and for what grows outside it) and the kernel-wide
	// budget half.
	RlimitSoftLimitNum, RlimitSoftLimitDen = 3, 4
	RlimitKernelBudgetDiv                  = 2

	// Ceilings: the reference machine's figures (24 GiB physical), which
	// the shares above reproduce there and never pass on larger machines.
	MaxSoftLimit     = 12 << 30
	MaxKernelBudget  = 8 << 30
	MaxSessionBudget = 2 << 30
)

// Facts are the limits found for this process, in bytes; 0 means none (an
// unlimited rlimit, a cgroup "max" or no memory cgroup, unknown physical
// memory).
type Facts struct {
	RlimitAS uint64 `json:"rlimit_as"`
	Cgroup   uint64 `json:"cgroup"`
	Physical uint64 `json:"physical"`
}

// Derived are the memory bounds derived from Facts.
type Derived struct {
	Facts
	// Limit is the smallest limit as found (before VirtualReserve is
	// taken off an address-space limit) and Source where it came from.
	Limit  int64  `json:"limit"`
	Source string `json:"source"`
	// Usable is the memory the Go heap may use under Limit: Limit, less
	// VirtualReserve for RLIMIT_AS, at least MinUsable.
	Usable int64 `json:"usable"`
	// SoftLimit is debug.SetMemoryLimit's figure, KernelBudget and
	// SessionBudget the defaults of --kernel-memory and --session-memory.
	SoftLimit     int64 `json:"soft_limit"`
	KernelBudget  int64 `json:"kernel_budget"`
	SessionBudget int64 `json:"session_budget"`
}

// usableUnder is the heap memory one limit leaves: an address-space limit
// loses VirtualReserve, the others count as they are.
func usableUnder(source string, limit uint64) uint64 {
	if source == SourceRlimitAS {
		if limit <= VirtualReserve {
			return 0
		}
		return limit - VirtualReserve
	}
	return limit
}

// Derive computes the bounds for f. The source whose usable memory is
// smallest wins (ties go to the first of rlimit_as, cgroup, physical);
// with none, the reference machine's figures apply.
func Derive(f Facts) Derived {
	d := Derived{Facts: f, Source: SourceNone}
	var best uint64
	for _, c := range []struct {
		source string
		limit  uint64
	}{{SourceRlimitAS, f.RlimitAS}, {SourceCgroup, f.Cgroup}, {SourcePhysical, f.Physical}} {
		if c.limit == 0 {
			continue
		}
		u := usableUnder(c.source, c.limit)
		if d.Source == SourceNone || u < best {
			best, d.Source, d.Limit = u, c.source, clampInt64(c.limit)
		}
	}
	if d.Source == SourceNone {
		d.SoftLimit, d.KernelBudget, d.SessionBudget = MaxSoftLimit, MaxKernelBudget, MaxSessionBudget
		d.Usable = MaxSoftLimit * SoftLimitDiv
		return d
	}
	d.Usable = max(clampInt64(best), MinUsable)
	soft, kernel := d.Usable/SoftLimitDiv, d.Usable/KernelBudgetDiv
	if d.Source == SourceRlimitAS {
		soft, kernel = d.Usable/RlimitSoftLimitDen*RlimitSoftLimitNum, d.Usable/RlimitKernelBudgetDiv
	}
	d.SoftLimit = min(soft, MaxSoftLimit)
	d.KernelBudget = min(kernel, MaxKernelBudget)
	d.SessionBudget = min(d.KernelBudget/SessionBudgetDiv, MaxSessionBudget)
	return d
}

func clampInt64(n uint64) int64 {
	if n > 1<<62 {
		return 1 << 62
	}
	return int64(n)
}
