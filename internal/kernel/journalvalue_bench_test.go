package kernel

import (
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// BenchmarkJournalValue measures what a row's value output costs beyond
// the answer: nothing for an answer with nothing elided (small), the
// whole encoding for an elided one that fits MaxJournalValue (list1k),
// and an encoding cut off soon after the bound for one that does not
// (list1m), beside the answer's own elide as the floor.
func BenchmarkJournalValue(b *testing.B) {
	ints := func(n int) value.Value {
		items := make([]value.Value, n)
		for i := range items {
			items[i] = value.Int(i)
		}
		return value.NewList(items)
	}
	l := limits{DefaultMaxBytes, DefaultMaxRows, DefaultMaxItems}
	for _, tc := range []struct {
		name string
		v    value.Value
	}{{"small", value.Int(2)}, {"list1k", ints(1000)}, {"list1m", ints(1 << 20)}} {
		answer, err := elide(tc.v, 1, l)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name+"/elide", func(b *testing.B) {
			for b.Loop() {
				_, _ = elide(tc.v, 1, l)
			}
		})
		b.Run(tc.name+"/journalValue", func(b *testing.B) {
			var n int
			for b.Loop() {
				n = len(journalValue(tc.v, answer))
			}
			b.ReportMetric(float64(n), "stored-bytes")
		})
	}
}
