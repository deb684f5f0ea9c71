// Package fastpath holds the benchmarks of issue 24 ("The fast path"):
// each workload of the table is timed beside its floor in the same
// run, and each reports its p50 (and p99 where the table names it), the
// floor's and their ratio. The kernel-facing workloads drive the real
// shoal-kernel binary as shipped (pure Go, journal on, its own garbage
// collector settings and cgroups), built once per test binary and only
// when a benchmark needs it, so `go test ./...` pays nothing for them.
// Its one piece of code, Pair, times a workload beside its floor for these
// benchmarks and for those of other packages that are rows of the same
// table; scripts/bench runs them all and prints the table
// (docs/performance.md, "The fast path").
package fastpath
