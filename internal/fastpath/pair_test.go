package fastpath

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestQuantile(t *testing.T) {
	d := make([]time.Duration, 100)
	for i := range d {
		d[len(d)-1-i] = time.Duration(i+1) * time.Microsecond
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 50 * time.Microsecond}, {0.99, 99 * time.Microsecond}, {1, 100 * time.Microsecond}, {0, time.Microsecond}} {
		if got := Quantile(d, c.q); got != c.want {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if got := Quantile(nil, 0.5); got != 0 {
		t.Errorf("Quantile of nothing = %v", got)
	}
}

// TestPairAlternates: the two sides take turns going first, each keeps
// its own durations, and an error stops the round.
func TestPairAlternates(t *testing.T) {
	var p Pair
	var order []string
	s := func() error { order = append(order, "s"); return nil }
	f := func() error { order = append(order, "f"); return nil }
	for range 3 {
		if err := p.Run(s, f); err != nil {
			t.Fatal(err)
		}
	}
	if got := string(joined(order)); got != "sffssf" {
		t.Errorf("order %s, want sffssf", got)
	}
	if len(p.Shoal) != 3 || len(p.Floor) != 3 {
		t.Errorf("kept %d and %d durations, want 3 and 3", len(p.Shoal), len(p.Floor))
	}
	boom := errors.New("boom")
	if err := p.Run(func() error { return boom }, f); !errors.Is(err, boom) {
		t.Errorf("Run = %v, want boom", err)
	}
}

func joined(ss []string) []byte {
	var b []byte
	for _, s := range ss {
		b = append(b, s...)
	}
	return b
}

// TestPairDump: with DumpEnv's directory set, each iteration's start and
// duration of both sides are kept and written one line an iteration, in
// the order run, the sides' starts in the order they went; without it
// nothing is kept.
func TestPairDump(t *testing.T) {
	old := dumpDir
	defer func() { dumpDir = old }()
	dumpDir = ""
	var off Pair
	nop := func() error { return nil }
	if err := off.Run(nop, nop); err != nil || len(off.ShoalAt) != 0 || len(off.FloorAt) != 0 {
		t.Fatalf("without the dump: %v, kept %d and %d starts", err, len(off.ShoalAt), len(off.FloorAt))
	}

	dumpDir = t.TempDir()
	var p Pair
	slowSide := func() error { time.Sleep(time.Millisecond); return nil }
	for range 5 {
		if err := p.Run(slowSide, nop); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dumpDir, "x.tsv")
	if err := p.dump(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5:\n%s", len(lines), b)
	}
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 5 {
			t.Fatalf("line %d: %q", i, l)
		}
		n := make([]int64, 5)
		for j := range f {
			if n[j], err = strconv.ParseInt(f[j], 10, 64); err != nil {
				t.Fatalf("line %d: %q", i, l)
			}
		}
		if n[0] != int64(i) || n[2] != p.Shoal[i].Nanoseconds() || n[4] != p.Floor[i].Nanoseconds() {
			t.Errorf("line %d is %q, want iteration %d, durations %d and %d", i, l, i, p.Shoal[i].Nanoseconds(), p.Floor[i].Nanoseconds())
		}
		// Shoal goes first in even iterations, the floor in odd ones.
		if shoalFirst := n[1] < n[3]; shoalFirst != (i%2 == 0) {
			t.Errorf("line %d: starts %d and %d, Shoal first %v", i, n[1], n[3], shoalFirst)
		}
	}
}
