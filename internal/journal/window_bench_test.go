package journal

import "testing"

// BenchmarkQueryWindow100k asks the 100,000-row journal of bigJournalPath
// (start times 1 µs apart, in id order) for narrow and wide since/until
// windows, and References for a hash every row names on behalf of a
// principal none of those rows is: the walks issue 24's bounds round
// found unbounded (ns/op is per query). A wide window walks until its page
// holds limit entries (the kernel contract), which the benchmark checks:
// "wide-old" walks the 50,000 newer rows first, as it always did.
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
