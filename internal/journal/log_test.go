package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// abandon drops d as a crash would: the applier stops without applying
// what is pending, nothing is flushed, the files are left as they are.
func (d *DB) abandon() {
	d.wmu.Lock()
	d.closed = true
	d.wmu.Unlock()
	close(d.ap.stop)
	<-d.ap.done
	d.log.close()
	close(d.ckpt)
	<-d.ckptDone
	d.w.Close()
	d.db.Close()
}

// Writes that returned survive a crash that left them only in the intent
// log, across segment switches; a torn frame at the tail is ignored; the
// segments stay bounded.
func TestIntentLogRecovery(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 64<<10)
	const n = 250
	for i := range n {
		e := &Entry{Session: "s", Principal: "p", Src: big, OK: true, Transcript: true}
		if _, err := d.Record(e); err != nil {
			t.Fatal(err)
		}
		if i%40 == 39 && i < 200 {
			if err := d.sync(); err != nil { // let the segments switch
				t.Fatal(err)
			}
		}
	}
	for i := range 2 {
		fi, err := os.Stat(path + "-log." + string(rune('0'+i)))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > logSegmentBytes+MaxPendingBytes {
			t.Fatalf("segment %d is %d bytes", i, fi.Size())
		}
	}
	d.abandon()

	// A torn write at the tail of both segments.
	for i := range 2 {
		f, err := os.OpenFile(path+"-log."+string(rune('0'+i)), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte{200, 0, 0, 0, 1, 2, 3, 4, '{', '"'})
		f.Close()
	}

	d, err = Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer d.Close()
	t.Logf("recovered %d writes from the log", d.recovered)
	rows, _, err := d.Stats()
	if err != nil || rows != n {
		t.Fatalf("rows after recovery: %d (%v), want %d", rows, err, n)
	}
	es, err := d.BySeq(SeqQuery{Limit: MaxQueryLimit})
	if err != nil || len(es) != n {
		t.Fatalf("BySeq: %d rows, %v", len(es), err)
	}
	for i, e := range es {
		if e.Seq != uint64(i+1) || e.TSeq != uint64(i+1) || e.ID != int64(i+1) || e.Src != big {
			t.Fatalf("row %d: id %d seq %d tseq %d", i, e.ID, e.Seq, e.TSeq)
		}
	}
	// The log is empty after recovery and writes continue the numbering.
	e := &Entry{Session: "s", Principal: "p", Src: "after", OK: true, Transcript: true}
	if id, err := d.Record(e); err != nil || id != n+1 || e.Seq != n+1 || e.TSeq != n+1 {
		t.Fatalf("after recovery: id %d seq %d tseq %d %v", id, e.Seq, e.TSeq, err)
	}
}

// Finish of a row another process began (and a crash left) is refused
// as finished; of an unknown id, not found; both after applying.
func TestFinishStates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := d.Begin(&Entry{Session: "s", Principal: "p", Src: "rm x"})
	if err != nil {
		t.Fatal(err)
	}
	d.abandon()
	d, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	e, err := d.Get(id)
	if err != nil || !e.Interrupted || e.Finished {
		t.Fatalf("row begun before the crash: %+v %v", e, err)
	}
	if err := d.Finish(id, &Entry{OK: true}); err == nil || !strings.Contains(err.Error(), "finished") {
		t.Fatalf("finish of an interrupted row: %v", err)
	}
	if err := d.Finish(id+5, &Entry{OK: true}); err == nil || !strings.Contains(err.Error(), "no such entry") {
		t.Fatalf("finish of an unknown row: %v", err)
	}
}

// The logged writes waiting for the applier never pass MaxPendingBytes:
// with the applier stopped, a writer waits at the bound (memory stays put
// however much is written), and goes on once a batch is applied.
func TestPendingBound(t *testing.T) {
	d := openTemp(t)
	close(d.ap.stop)
	<-d.ap.done
	big := strings.Repeat("y", MaxSrcBytes)
	wrote := make(chan int, 1000)
	go func() {
		for i := range 2 * (MaxPendingBytes / MaxSrcBytes) { // twice the bound
			if _, err := d.Record(&Entry{Session: "s", Principal: "p", Src: big, OK: true}); err != nil {
				t.Error(err)
				return
			}
			wrote <- i
		}
		close(wrote)
	}()
	// The writer stops at the bound.
	n := 0
	for stalled := false; !stalled; {
		select {
		case _, ok := <-wrote:
			if !ok {
				t.Fatal("every write went through with nothing applied")
			}
			n++
		case <-time.After(300 * time.Millisecond):
			stalled = true
		}
	}
	d.ap.mu.Lock()
	held := d.ap.pendingBytes
	d.ap.mu.Unlock()
	if held > MaxPendingBytes || n > MaxPendingBytes/MaxSrcBytes+1 {
		t.Fatalf("%d writes (%d bytes) pending with the applier stopped; bound %d", n, held, MaxPendingBytes)
	}
	// Applying lets the writer finish (apply in rounds as it refills).
	d.ap.stop, d.ap.done = make(chan struct{}), make(chan struct{})
	go d.runApplier()
	for range wrote {
		n++
	}
	if want := 2 * (MaxPendingBytes / MaxSrcBytes); n != want {
		t.Fatalf("%d writes, want %d", n, want)
	}
	if rows, _, err := d.Stats(); err != nil || rows != int64(n) {
		t.Fatalf("rows %d (%v), want %d", rows, err, n)
	}
}
