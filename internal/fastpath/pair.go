package fastpath

import (
	"slices"
	"strconv"
	"testing"
	"time"
)

// Pair is one workload measured beside its floor in the same benchmark:
// every iteration runs both once, taking turns going first so that drift
// in the machine's speed weighs on both alike, and keeps each one's
// duration for percentiles. Benchmarks of other packages (the sandboxed
// spawn in internal/host, the MCP facade in internal/mcp) use it too, so
// that every row of the table reports the same metrics.
type Pair struct {
	Shoal, Floor []time.Duration
}

// Run times shoal and floor once each, in an order that alternates from
// one call to the next, and returns the first error.
func (p *Pair) Run(shoal, floor func() error) error {
	sides := [2]func() error{shoal, floor}
	outs := [2]*[]time.Duration{&p.Shoal, &p.Floor}
	if len(p.Shoal)%2 == 1 {
		sides[0], sides[1], outs[0], outs[1] = floor, shoal, &p.Floor, &p.Shoal
	}
	for i, side := range sides {
		t0 := time.Now()
		if err := side(); err != nil {
			return err
		}
		*outs[i] = append(*outs[i], time.Since(t0))
	}
	return nil
}

// Report reports p50-us, floor-p50-us and ratio-p50 (Shoal's p50 over
// the floor's), the same for p99 when p99 is set, and ratio-mean, the
// ratio of the two sides' total times.
func (p *Pair) Report(b *testing.B, p99 bool) {
	if len(p.Shoal) == 0 || len(p.Floor) == 0 {
		return
	}
	qs := []float64{0.5}
	if p99 {
		qs = append(qs, 0.99)
	}
	for _, q := range qs {
		name := "p" + strconv.Itoa(int(q*100))
		s, f := Quantile(p.Shoal, q), Quantile(p.Floor, q)
		b.ReportMetric(Micros(s), name+"-us")
		b.ReportMetric(Micros(f), "floor-"+name+"-us")
		b.ReportMetric(float64(s)/float64(f), "ratio-"+name)
	}
	var st, ft time.Duration
	for _, d := range p.Shoal {
		st += d
	}
	for _, d := range p.Floor {
		ft += d
	}
	b.ReportMetric(float64(st)/float64(ft), "ratio-mean")
}

// Quantile is the nearest-rank q-quantile of d, which it sorts.
func Quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(q*float64(len(d))+0.999999) - 1
	return d[min(max(i, 0), len(d)-1)]
}

// Micros is d in microseconds.
func Micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
