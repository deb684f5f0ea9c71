package journal

import (
	"database/sql"
	"fmt"
	"math/bits"
	"slices"
)

// effectBits maps effect kinds to bits of entries.effect_mask, mirroring
// the effect_bits table. A kind gets the next free bit the first time an
// entry names it; at most MaxEffectKindsEver kinds fit.
type effectBits struct {
	bit  map[string]uint
	kind [MaxEffectKindsEver]string
	n    int
}

type querier interface {
	Query(query string, args ...any) (*sql.Rows, error)
	Exec(query string, args ...any) (sql.Result, error)
}

func loadBits(q querier) (*effectBits, error) {
	rows, err := q.Query(`SELECT kind, bit FROM effect_bits ORDER BY bit`)
	if err != nil {
		return nil, fmt.Errorf("journal: loading effect kinds: %w", err)
	}
	defer rows.Close()
	eb := &effectBits{bit: map[string]uint{}}
	for rows.Next() {
		var k string
		var b uint
		if err := rows.Scan(&k, &b); err != nil {
			return nil, fmt.Errorf("journal: loading effect kinds: %w", err)
		}
		if b >= MaxEffectKindsEver {
			return nil, fmt.Errorf("journal: effect kind %q has bit %d", k, b)
		}
		eb.bit[k] = b
		eb.kind[b] = k
		eb.n = max(eb.n, int(b)+1)
	}
	return eb, rows.Err()
}

// maskFor returns the mask of kinds, allocating bits (through q, inside the
// caller's write) for kinds not seen before.
func (eb *effectBits) maskFor(q querier, kinds []string) (int64, error) {
	var m uint64
	for _, k := range kinds {
		b, ok := eb.bit[k]
		if !ok {
			if eb.n >= MaxEffectKindsEver {
				return 0, fmt.Errorf("%w: effect kind %q: the journal already knows %d kinds (max %d)", ErrBadEntry, k, eb.n, MaxEffectKindsEver)
			}
			b = uint(eb.n)
			if _, err := q.Exec(`INSERT INTO effect_bits(kind, bit) VALUES (?, ?)`, k, b); err != nil {
				return 0, fmt.Errorf("journal: allocating a bit for effect kind %q: %w", k, err)
			}
			eb.bit[k], eb.kind[b] = b, k
			eb.n++
		}
		m |= 1 << b
	}
	return int64(m), nil
}

// lookup returns the mask of kinds without allocating; ok is false when a
// kind has never been recorded (so no entry can have it).
func (eb *effectBits) lookup(kinds []string) (int64, bool) {
	var m uint64
	for _, k := range kinds {
		b, ok := eb.bit[k]
		if !ok {
			return 0, false
		}
		m |= 1 << b
	}
	return int64(m), true
}

// kinds returns the sorted kinds of mask.
func (eb *effectBits) kinds(mask int64) []string {
	if mask == 0 {
		return nil
	}
	m := uint64(mask)
	out := make([]string, 0, bits.OnesCount64(m))
	for m != 0 {
		b := bits.TrailingZeros64(m)
		out = append(out, eb.kind[b])
		m &^= 1 << b
	}
	slices.Sort(out)
	return out
}
