package host

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/contain"
)

// BenchmarkSpawnDirectAB runs /bin/true as the kernel does (a scope with
// cgroup leaves, a session of its own) with the child's write ends closed
// at once and held until its exit (holdWriteEndsOn), interleaved spawn by
// spawn so that a shared machine's load falls on both alike: per variant,
// the p50 and mean of the spawn's wall time and this process's CPU per
// spawn (getrusage, children excluded).
func BenchmarkSpawnDirectAB(b *testing.B) {
	truePath := prog(b, "true")
	m := contain.New(contain.Config{Cgroups: true, Name: "shoal-hostab"})
	b.Cleanup(m.Close)
	scope := m.NewScope()
	b.Cleanup(scope.Close)
	h := NewOS(AllowAll, WithProcesses(scope), WithoutTerminal())
	ctx := context.Background()
	s := &Spawn{Argv: []string{truePath}, Env: []string{"PATH=/usr/bin:/bin"}}
	type variant struct {
		name string
		held bool
		wall []time.Duration
		cpu  time.Duration
	}
	vs := []*variant{{name: "closed"}, {name: "held", held: true}}
	defer func() { holdWriteEndsOn = true }()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	i := 0
	for b.Loop() {
		for k := range vs {
			v := vs[(i+k)%len(vs)] // each variant first in turn
			holdWriteEndsOn = v.held
			c0, t0 := cpu(), time.Now()
			res, err := h.Run(ctx, s)
			v.wall = append(v.wall, time.Since(t0))
			v.cpu += cpu() - c0
			if err != nil || res.Status == nil || *res.Status != 0 {
				b.Fatalf("Run = %+v, %v", res, err)
			}
		}
		i++
	}
	for _, v := range vs {
		slices.Sort(v.wall)
		b.ReportMetric(float64(v.wall[len(v.wall)/2].Microseconds()), v.name+"-p50-us")
		b.ReportMetric(float64(v.cpu.Microseconds())/float64(len(v.wall)), v.name+"-cpu-us")
		var sum time.Duration
		for _, w := range v.wall {
			sum += w
		}
		b.ReportMetric(float64(sum.Microseconds())/float64(len(v.wall)), v.name+"-mean-us")
	}
}
