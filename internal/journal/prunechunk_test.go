package journal

import (
	"fmt"
	"path/filepath"
	"testing"
)

// smallRows records n rows like `exec "N + 1"`'s over 8 sessions and
// returns the id after the last.
func smallRows(t *testing.T, d *DB, n int) int64 {
	t.Helper()
	var last int64
	for i := range n {
		var err error
		if last, err = d.Record(&Entry{Session: fmt.Sprint("s", i%8), Principal: "p", Src: fmt.Sprintf("%d + 1", i), OK: true}); err != nil {
			t.Fatal(err)
		}
	}
	return last + 1
}

// TestSetWALBound: the bounds a disk budget's WAL share sets (wal.go), and
// the defaults with none, or with one past MaxWALBytes.
func TestSetWALBound(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	check := func(n, wal, batch, pending, seg int64) {
		t.Helper()
		d.SetWALBound(n)
		d.ap.mu.Lock()
		gotBatch, gotPending := d.ap.batchBytes, d.ap.pendingCap
		d.ap.mu.Unlock()
		if d.WALBound() != wal || gotBatch != batch || gotPending != pending || d.log.segmentBytes() != seg {
			t.Errorf("SetWALBound(%d): WAL %d, batch %d, pending %d, log segment %d; want %d, %d, %d, %d",
				n, d.WALBound(), gotBatch, gotPending, d.log.segmentBytes(), wal, batch, pending, seg)
		}
	}
	check(128<<10, 128<<10, 32<<10, 128<<10, 128<<10) // a 1 MiB budget's eighth
	check(0, MaxWALBytes, 0, MaxPendingBytes, logSegmentBytes)
	check(-1, MaxWALBytes, 0, MaxPendingBytes, logSegmentBytes)
	check(128<<20, MaxWALBytes, 32<<20, MaxPendingBytes, logSegmentBytes) // the default 1 GiB budget's
}

// TestTakeCutsByBytes: under a WAL bound a batch ends once its logged
// writes reach the bound's BoundBatchShare-th, however few rows that is.
func TestTakeCutsByBytes(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	stopApplier(t, d)
	smallRows(t, d, 1000)
	d.SetWALBound(64 << 10) // after the rows: writers wait past the bound, and no applier runs

	ops := d.ap.take()
	var bytes int64
	for _, op := range ops[:len(ops)-1] {
		bytes += op.size()
	}
	if want := int64(16 << 10); len(ops) == 0 || bytes >= want || bytes+ops[len(ops)-1].size() < want {
		t.Fatalf("a batch of %d writes, %d bytes before its last; want it to end at the one that reaches %d", len(ops), bytes, want)
	}
	if err := d.applyTaken(ops); err != nil {
		t.Fatal(err)
	}
	if err := d.sync(); err != nil {
		t.Fatal(err)
	}
}

// TestApplyUpToStopsAtTarget: a read applies the writes logged before it,
// not every write that arrives while it applies: under a flood, draining
// kept the disk budget's check applying batch after batch.
func TestApplyUpToStopsAtTarget(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	stopApplier(t, d)
	smallRows(t, d, 10)
	target := d.ap.appended.Load()
	smallRows(t, d, 2*ApplyBatch)
	if err := d.applyUpTo(target); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := d.db.QueryRow(`SELECT count(*) FROM entries`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != ApplyBatch {
		t.Fatalf("%d rows applied; want the one batch (%d) that holds the target", n, ApplyBatch)
	}
}

// TestPruneChunksBoundWAL: a prune of thousands of small rows under a WAL
// bound goes in transactions of PruneChunkRows rows with the bound applied
// between them, so the WAL never holds more than the bound and one
// chunk's pages. In one transaction it held all their pages: 1.2 MB for
// these 5,000 rows against a 128 KiB bound.
func TestPruneChunksBoundWAL(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	const rows = 5000
	before := smallRows(t, d, rows)
	if err := d.sync(); err != nil {
		t.Fatal(err)
	}
	if err := d.TruncateWAL(); err != nil {
		t.Fatal(err)
	}
	const bound = 128 << 10
	d.SetWALBound(bound)
	d.wal.peak.Store(0)
	n, err := d.Prune(before)
	if err != nil || n != rows {
		t.Fatalf("Prune = %d, %v; want %d", n, err, rows)
	}
	peak := d.wal.peak.Load()
	t.Logf("pruned %d rows: WAL peak %d bytes, %d truncations", n, peak, d.wal.truncated.Load())
	// A chunk of 256 small rows dirties some 40 pages with their
	// indexes; twice that is the allowance.
	if allowed := int64(bound + 80*4096); peak > allowed {
		t.Errorf("the WAL reached %d bytes during the prune, past the %d bound plus a chunk (%d)", peak, bound, allowed)
	}
	var left int
	if err := d.db.QueryRow(`SELECT count(*) FROM entries`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d rows left, %v", left, err)
	}
}
