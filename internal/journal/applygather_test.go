package journal

import (
	"path/filepath"
	"testing"
	"time"
)

// TestApplyGatheredOneBatch: the background applier's step applies one
// batch (at most ApplyBatch of the oldest writes), not everything
// pending, and says how many writes it left; what it leaves is applied
// by the next step or by a read.
func TestApplyGatheredOneBatch(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() }) // after stopApplier's restart
	stopApplier(t, d)
	const n = ApplyBatch + 10
	for range n {
		if _, err := d.Record(&Entry{Session: "s", Principal: "p", Src: "1 + 1", OK: true}); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		var c int
		if err := d.db.QueryRow(`SELECT count(*) FROM entries`).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	left, err := d.applyGathered()
	if err != nil {
		t.Fatal(err)
	}
	if left != n-ApplyBatch || count() != ApplyBatch {
		t.Fatalf("first step: left %d pending, %d rows applied; want %d and %d", left, count(), n-ApplyBatch, ApplyBatch)
	}
	if d.ap.applied.Load() >= d.ap.appended.Load() {
		t.Fatalf("applied LSN %d reached the appended %d with writes left", d.ap.applied.Load(), d.ap.appended.Load())
	}
	if left, err = d.applyGathered(); err != nil || left != 0 || count() != n {
		t.Fatalf("second step: left %d, %d rows, err %v; want 0, %d, nil", left, count(), err, n)
	}
	if left, err = d.applyGathered(); err != nil || left != 0 {
		t.Fatalf("an empty step: left %d, err %v", left, err)
	}
	if d.ap.applied.Load() != d.ap.appended.Load() {
		t.Fatalf("applied LSN %d, appended %d", d.ap.applied.Load(), d.ap.appended.Load())
	}
}

// TestGatherNext: after a step, a full batch left waiting is applied at
// once; fewer writes kick the applier so they gather for ApplyDelay; none
// leave it waiting for the next write's kick.
func TestGatherNext(t *testing.T) {
	a := newApplier()
	if a.gatherNext(0) {
		t.Fatal("nothing left: full")
	}
	select {
	case <-a.kick:
		t.Fatal("nothing left: kicked")
	default:
	}
	if a.gatherNext(ApplyBatch - 1) {
		t.Fatal("less than a batch left: full")
	}
	select {
	case <-a.kick:
	default:
		t.Fatal("less than a batch left: not kicked")
	}
	if !a.gatherNext(ApplyBatch) {
		t.Fatal("a full batch left: not full")
	}
}

// TestBackgroundApplierLeavesNothing: rows written while the background
// applier runs are all applied by it (with no read to force them), over
// many batches, some cut short by writes arriving during a batch.
func TestBackgroundApplierLeavesNothing(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	const n = 3*ApplyBatch + 7
	for range n {
		if _, err := d.Record(&Entry{Session: "s", Principal: "p", Src: "1 + 1", OK: true}); err != nil {
			t.Fatal(err)
		}
	}
	target := d.ap.appended.Load()
	// A liveness wait, not a timing assertion: the applier gets as long
	// as it needs on a loaded machine, up to a bound that only a stuck
	// applier reaches.
	for deadline := time.Now().Add(2 * time.Minute); d.ap.applied.Load() < target; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the background applier stopped at LSN %d of %d", d.ap.applied.Load(), target)
		}
	}
	var c int
	if err := d.db.QueryRow(`SELECT count(*) FROM entries`).Scan(&c); err != nil {
		t.Fatal(err)
	}
	if c != n {
		t.Fatalf("%d rows applied, want %d", c, n)
	}
}
