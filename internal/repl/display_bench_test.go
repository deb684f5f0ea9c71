package repl

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/value"
)

// BenchmarkTallHead shows a head of an ls-like table of n rows on a
// 100x40 terminal, as the REPL does for a value taller than the screen:
// the work is in proportion to the rows shown, not to n.
func BenchmarkTallHead(b *testing.B) {
	for _, n := range []int{150, 1_000_000} {
		cols := []string{"path", "name", "type", "size", "modified"}
		data := make([][]value.Value, len(cols))
		for c := range data {
			data[c] = make([]value.Value, n)
		}
		at := time.Date(2026, 12, 1, 10, 19, 16, 436488288, time.UTC)
		for r := range n {
			name := fmt.Sprintf("file_%d", r)
			data[0][r], data[1][r], data[2][r] = value.Path(name), value.Str(name), value.Str("file")
			data[3][r], data[4][r] = value.Size(r), value.DateTime{T: at}
		}
		tbl := &value.Table{Cols: cols, Data: data, N: n}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				Display{}.show(context.Background(), io.Discard, tbl, 100, 40, nil)
			}
		})
		// The floor: one bounded rendering of the 38 lines shown.
		b.Run(fmt.Sprint("floor-", n), func(b *testing.B) {
			for b.Loop() {
				s, _ := value.DisplayBounded(tbl, value.TextBound{Width: 100, Lines: 38, Bytes: value.MaxEncodedBytes})
				_, _ = io.WriteString(io.Discard, s)
			}
		})
	}
}
