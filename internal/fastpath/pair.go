package fastpath

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// DumpEnv names a directory: when it is set, Report writes every
// iteration's two durations there, one file a benchmark (its name, slashes
// made dashes, ".tsv"), before it sorts them for the percentiles. Each line
// is the iteration, the Shoal side's start (wall clock, Unix ns) and
// duration (ns), then the floor's: what a trace of the kernel over the same
// seconds is lined up against to see what its slowest requests waited on.
const DumpEnv = "SHOAL_FASTPATH_DUMP"

var dumpDir = os.Getenv(DumpEnv)

// Pair is one workload measured beside its floor in the same benchmark:
// every iteration runs both once, taking turns going first so that drift
// in the machine's speed weighs on both alike, and keeps each one's
// duration for percentiles. Benchmarks of other packages (the sandboxed
// spawn in internal/host, the MCP facade in internal/mcp) use it too, so
// that every row of the table reports the same metrics.
type Pair struct {
	Shoal, Floor []time.Duration
	// ShoalAt and FloorAt are each side's start times (Unix ns), kept
	// only when DumpEnv is set.
	ShoalAt, FloorAt []int64
}

// Run times shoal and floor once each, in an order that alternates from
// one call to the next, and returns the first error.
func (p *Pair) Run(shoal, floor func() error) error {
	sides := [2]func() error{shoal, floor}
	outs := [2]*[]time.Duration{&p.Shoal, &p.Floor}
	ats := [2]*[]int64{&p.ShoalAt, &p.FloorAt}
	if len(p.Shoal)%2 == 1 {
		sides[0], sides[1], outs[0], outs[1], ats[0], ats[1] = floor, shoal, &p.Floor, &p.Shoal, &p.FloorAt, &p.ShoalAt
	}
	for i, side := range sides {
		t0 := time.Now()
		if err := side(); err != nil {
			return err
		}
		*outs[i] = append(*outs[i], time.Since(t0))
		if dumpDir != "" {
			*ats[i] = append(*ats[i], t0.UnixNano())
		}
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
	if dumpDir != "" {
		if err := p.dump(filepath.Join(dumpDir, strings.ReplaceAll(b.Name(), "/", "-")+".tsv")); err != nil {
			b.Error(err)
		}
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

// dump writes the iterations to path, as DumpEnv says.
func (p *Pair) dump(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	n := min(len(p.Shoal), len(p.Floor), len(p.ShoalAt), len(p.FloorAt))
	for i := range n {
		fmt.Fprintf(w, "%d\t%d\t%d\t%d\t%d\n", i, p.ShoalAt[i], p.Shoal[i].Nanoseconds(), p.FloorAt[i], p.Floor[i].Nanoseconds())
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
