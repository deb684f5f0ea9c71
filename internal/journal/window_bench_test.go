package journal

import "testing"

// BenchmarkQueryWindow100k asks the 100,000-row journal of bigJournalPath
// (start times 1 µs apart, in id order) for narrow and wide since/until
// windows, and References for a hash every row names on behalf of a
// principal none of those rows is: the walks issue 24's bounds round
// found unbounded (ns/op is per query). A wide window walks until its page
// holds limit entries (the kernel contract), which the benchmark checks:
// "wide-old" walked the 50,000 newer rows first until the twelfth round
// bounded a deep window's walk by its ids (window.go); "effects-oldest"
// still walks every row above the ten oldest.
func BenchmarkQueryWindow100k(b *testing.B) {
	d, err := Open(bigJournalPath(b))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	// bigJournalPath writes outputs_json alone; the applier's outputs
	// table, which References reads, is filled here from it.
	if _, err := d.db.Exec(`INSERT OR IGNORE INTO outputs(entry_id, seq, kind, hash, len)
		SELECT e.id, CAST(j.key AS INTEGER), j.value ->> 'kind', j.value ->> 'hash', j.value ->> 'len'
		FROM entries e, json_each(e.outputs_json) j`); err != nil {
		b.Fatal(err)
	}
	// The ten oldest rows alone have net_connect: an effects filter on
	// it walks every newer row (no index gives rows by effect kind).
	rare, err := d.maskFor([]string{"fs_read", "proc_spawn", "net_connect"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := d.db.Exec(`UPDATE entries SET effect_mask = ? WHERE id <= 10`, rare); err != nil {
		b.Fatal(err)
	}
	const us = 1000
	cases := []struct {
		name string
		q    Query
		full bool // the page holds limit entries
	}{
		{"narrow-newest", Query{Since: (benchRows - 10) * us, Limit: 100}, false},
		{"narrow-old", Query{Since: 1000 * us, Until: 1010 * us, Limit: 100}, false},
		{"narrow-old-principal", Query{Since: 1000 * us, Until: 1050 * us, Principal: "principal-3", Principals: []string{"principal-3"}, Limit: 100}, false},
		{"wide-old", Query{Until: (benchRows / 2) * us, Limit: 100}, true},
		{"wide-old-own-ids", Query{Until: (benchRows / 2) * us, Principals: []string{"principal-3"}, OwnIDs: true, Limit: 100}, true},
		{"wide-old-session", Query{Since: 1000 * us, Until: (benchRows / 2) * us, Session: "sess-7", Limit: 100}, true},
		{"effects-oldest", Query{Effects: []string{"net_connect"}, Limit: 100}, false},
		{"wide-newest", Query{Since: (benchRows / 2) * us, Limit: 100}, true},
		{"none", Query{Limit: 100}, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				es, _, err := d.Query(c.q)
				if err != nil || len(es) == 0 || len(es) > c.q.Limit || (c.full && len(es) != c.q.Limit) {
					b.Fatal(len(es), err)
				}
				ReleasePage(es)
			}
		})
	}
	b.Run("references-other", func(b *testing.B) {
		for range b.N {
			ok, err := d.References(benchOutputs[1].Hash, "nobody")
			if err != nil || ok {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("references-own", func(b *testing.B) {
		for range b.N {
			ok, err := d.References(benchOutputs[1].Hash, "principal-3")
			if err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
}
