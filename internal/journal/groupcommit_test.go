package journal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCrashManyWriters is TestCrashConcurrentWriters with 32 writers, as
// the kernel's 32-connection throughput row has them: many rows share
// one write(2) of the intent log (group commit), and every row a writer
// was told was committed is there after a kill -9.
func TestCrashManyWriters(t *testing.T) { crashMidLoop(t, 32) }

// breakLog makes the intent log's writes fail (its current segment is
// swapped for a read-only handle, without its mapping) and returns what
// puts it back.
func breakLog(t *testing.T, d *DB) func() {
	t.Helper()
	l := d.log
	ro, err := os.Open(l.segPath(l.cur))
	if err != nil {
		t.Fatal(err)
	}
	good, m := l.seg[l.cur], l.maps[l.cur]
	l.seg[l.cur], l.maps[l.cur] = ro, nil
	return func() {
		l.seg[l.cur], l.maps[l.cur] = good, m
		ro.Close()
	}
}

// A failed log write fails its rows and leaves no gap: the ids, pids and
// seqs it took are taken again by the next rows, a Begin it failed is not
// open, a Finish it failed leaves its row open, and OnFinish is told only
// of written rows.
func TestGroupCommitFailedWriteLeavesNoGap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var told []uint64
	d.OnFinish(func(e *Entry) { told = append(told, e.Seq) })
	row := func() *Entry {
		return &Entry{Session: "s", Principal: "p", Src: "1 + 1", OK: true, Transcript: true}
	}
	e1 := row()
	if _, err := d.Record(e1); err != nil {
		t.Fatal(err)
	}
	open, err := d.Begin(row())
	if err != nil {
		t.Fatal(err)
	}

	restore := breakLog(t, d)
	e := row()
	if id, err := d.Record(e); err == nil {
		t.Fatalf("Record on a broken log: id %d, no error", id)
	}
	if e.ID != 0 || e.Seq != 0 || e.TSeq != 0 || e.PSeq != 0 || e.PID != 0 {
		t.Fatalf("a failed Record left numbers on its entry: %+v", e)
	}
	if id, err := d.Begin(row()); err == nil {
		t.Fatalf("Begin on a broken log: id %d, no error", id)
	}
	if err := d.Finish(open, row()); err == nil {
		t.Fatal("Finish on a broken log: no error")
	}
	restore()

	e2 := row()
	id2, err := d.Record(e2)
	if err != nil {
		t.Fatal(err)
	}
	if id2 != open+1 || e2.Seq != e1.Seq+1 || e2.PSeq != e1.PSeq+1 || e2.TSeq != e1.TSeq+1 || e2.PID != e1.PID+2 {
		t.Fatalf("after a failed write: id %d (want %d), seq %d, pseq %d, tseq %d, pid %d; before it: seq %d, pseq %d, tseq %d, pid %d",
			id2, open+1, e2.Seq, e2.PSeq, e2.TSeq, e2.PID, e1.Seq, e1.PSeq, e1.TSeq, e1.PID)
	}
	fin := row()
	if err := d.Finish(open, fin); err != nil {
		t.Fatalf("Finish after its failed write: %v", err)
	}
	if fin.Seq != e2.Seq+1 {
		t.Fatalf("finished row's seq %d, want %d", fin.Seq, e2.Seq+1)
	}
	if want := []uint64{1, 2, 3}; len(told) != 3 || told[0] != want[0] || told[1] != want[1] || told[2] != want[2] {
		t.Fatalf("told of seqs %v, want %v", told, want)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	es, _, err := d.Query(Query{Kind: "*", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 {
		t.Fatalf("%d rows after reopening, want 3: %+v", len(es), es)
	}
	want := map[int64]uint64{e1.ID: e1.Seq, open: fin.Seq, id2: e2.Seq}
	for _, e := range es {
		if s, ok := want[e.ID]; !ok || e.Seq != s || !e.Finished {
			t.Fatalf("row %d: seq %d finished %v, want seq %d finished (rows and seqs %v)", e.ID, e.Seq, e.Finished, s, want)
		}
	}
}

// Rows numbered while an earlier batch is being written go in the next
// batch; when the earlier write fails, they fail too (they were numbered
// after the failed rows), and the numbering goes back to before the
// failed batch.
func TestGroupCommitFailureFailsTheNextBatch(t *testing.T) {
	d := openTemp(t)
	row := func(src string) *Entry {
		return &Entry{Session: "s", Principal: "p", Src: src, OK: true}
	}
	first, err := d.Record(row("0"))
	if err != nil {
		t.Fatal(err)
	}
	// Two rows in one batch, then one in the next, as writers arriving
	// during the first batch's write would stage them.
	b1, err := d.insertLocked(row("a"), &logOp{Kind: KindExec, Session: "s", Principal: "p", Src: "a", Finished: true}, KindExec, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := d.insertLocked(row("b"), &logOp{Kind: KindExec, Session: "s", Principal: "p", Src: "b", Finished: true}, KindExec, nil, true); err != nil || b != b1 {
		t.Fatalf("second row staged in %p (err %v), want the open batch %p", b, err, b1)
	}
	d.fmu.Lock()
	d.wmu.Lock()
	d.swapLocked()
	d.wmu.Unlock()
	b2, err := d.insertLocked(row("c"), &logOp{Kind: KindExec, Session: "s", Principal: "p", Src: "c", Finished: true}, KindExec, nil, true)
	if err != nil || b2 == b1 {
		d.fmu.Unlock()
		t.Fatalf("third row staged in %p (err %v), want a new batch", b2, err)
	}
	restore := breakLog(t, d)
	d.writeBatch(b1, false)
	restore()
	d.fmu.Unlock()
	if !b1.done || b1.err == nil {
		t.Fatalf("failed batch: done %v err %v", b1.done, b1.err)
	}
	if !b2.done || !errors.Is(b2.err, errEarlierWrite) {
		t.Fatalf("the batch after a failed one: done %v err %v, want errEarlierWrite", b2.done, b2.err)
	}
	if err := d.await(b2, nil); !errors.Is(err, errEarlierWrite) {
		t.Fatalf("await of the failed next batch: %v", err)
	}
	e := row("d")
	id, err := d.Record(e)
	if err != nil {
		t.Fatal(err)
	}
	if id != first+1 || e.Seq != 2 {
		t.Fatalf("after the failed batches: id %d seq %d, want id %d seq 2", id, e.Seq, first+1)
	}
	es, _, err := d.Query(Query{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Src != "d" || es[1].Src != "0" {
		t.Fatalf("rows %+v, want d and 0", es)
	}
}
