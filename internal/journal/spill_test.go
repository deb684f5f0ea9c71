package journal

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A batch that dirties far more pages than the write connection keeps in
// memory (applySpillPages, lowered here to 32 pages with the cache) is
// written to the WAL before its commit, as SQLite does by default, and
// applies whole: every row reads back as written.
func TestApplyPastSpillPages(t *testing.T) {
	d := openTemp(t)
	ctx := context.Background()
	for _, p := range []string{`PRAGMA cache_spill = 32`, `PRAGMA cache_size = 32`} {
		if _, err := d.w.ExecContext(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	const rows, sessions = 400, 32 // 400 × 16 KiB of source: about 1,600 pages, 50 times the threshold
	// One row per session first: a session's first row reads its last
	// numbers from the database, applying what is pending.
	for i := range sessions {
		if _, err := d.Record(&Entry{Session: fmt.Sprintf("s%d", i), Principal: "p", Src: "0", OK: true, Transcript: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.sync(); err != nil {
		t.Fatal(err)
	}
	close(d.ap.stop)
	<-d.ap.done
	for i := range rows {
		src := fmt.Sprintf("%03d ", i) + strings.Repeat("x", 16<<10)
		if _, err := d.Record(&Entry{Session: fmt.Sprintf("s%d", i%sessions), Principal: "p", Src: src, OK: true,
			Transcript: true, RefN: int64(i/32 + 1), Outputs: benchOutputs[:1]}); err != nil {
			t.Fatal(err)
		}
	}
	batch := takePending(d)
	d.ap.stop, d.ap.done = make(chan struct{}), make(chan struct{})
	go d.runApplier()
	if len(batch) != rows {
		t.Fatalf("%d writes pending, want %d", len(batch), rows)
	}
	d.ap.amu.Lock()
	err := d.applyOps(batch)
	d.ap.amu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	es, _, err := d.Query(Query{Limit: rows})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != rows {
		t.Fatalf("%d rows read back, want %d", len(es), rows)
	}
	for j, e := range es {
		i := rows - 1 - j
		if !strings.HasPrefix(e.Src, fmt.Sprintf("%03d ", i)) || len(e.Src) != 4+16<<10 || len(e.Outputs) != 1 || e.TSeq == 0 {
			t.Fatalf("row %d read back as %.8q… (%d bytes, %d outputs, tseq %d)", i, e.Src, len(e.Src), len(e.Outputs), e.TSeq)
		}
	}
}
