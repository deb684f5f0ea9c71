package fastpath

import (
	"errors"
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
