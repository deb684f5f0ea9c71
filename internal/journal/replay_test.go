package journal

import (
	"errors"
	"path/filepath"
	"testing"
)

// The event-channel numbers: every finished exec row takes the next seq,
// in commit order, and a transcript row the next tseq of its stream;
// OnFinish sees them in that order; a reopened journal continues them.
func TestSeqsAndReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var seen []uint64
	d.OnFinish(func(e *Entry) { seen = append(seen, e.Seq) })
	a := &Entry{Session: "s", Principal: "alice", Src: "1", OK: true, Transcript: true, RefN: 1}
	if _, err := d.Record(a); err != nil {
		t.Fatal(err)
	}
	long, err := d.Begin(&Entry{Session: "s", Principal: "alice", Src: "rm x"})
	if err != nil {
		t.Fatal(err)
	}
	b := &Entry{Session: "t", Principal: "bob", Src: "2", OK: true, Transcript: true, RefN: 1}
	if _, err := d.Record(b); err != nil {
		t.Fatal(err)
	}
	refused := &Entry{Session: "s", Principal: "alice", Src: "rm y", Verdict: "deny"}
	if _, err := d.Record(refused); err != nil {
		t.Fatal(err)
	}
	fin := &Entry{Session: "s", Principal: "alice", Src: "rm x", OK: false, Code: "io_error", Transcript: true, RefN: 2}
	if err := d.Finish(long, fin); err != nil {
		t.Fatal(err)
	}
	if a.Seq != 1 || b.Seq != 2 || refused.Seq != 3 || fin.Seq != 4 || fin.ID != long {
		t.Fatalf("seqs %d %d %d %d (id %d)", a.Seq, b.Seq, refused.Seq, fin.Seq, fin.ID)
	}
	if a.TSeq != 1 || b.TSeq != 1 || refused.TSeq != 0 || fin.TSeq != 2 {
		t.Fatalf("tseqs %d %d %d %d", a.TSeq, b.TSeq, refused.TSeq, fin.TSeq)
	}
	if len(seen) != 4 || seen[0] != 1 || seen[3] != 4 {
		t.Fatalf("OnFinish saw %v", seen)
	}
	all, err := d.BySeq(SeqQuery{After: 1})
	if err != nil || len(all) != 3 || all[0].Seq != 2 || all[2].Seq != 4 || all[2].Code != "io_error" || all[2].RefN != 2 {
		t.Fatalf("BySeq after 1: %v %+v", err, all)
	}
	mine, _ := d.BySeq(SeqQuery{Principals: []string{"alice"}, Limit: 1, Tail: true})
	if len(mine) != 1 || mine[0].Seq != 4 {
		t.Fatalf("alice's newest: %+v", mine)
	}
	none, _ := d.BySeq(SeqQuery{Principals: []string{}})
	if len(none) != 0 {
		t.Fatalf("empty scope: %+v", none)
	}
	tr, _ := d.BySeq(SeqQuery{Transcript: true, Principal: "alice", Session: "s"})
	if len(tr) != 2 || tr[0].TSeq != 1 || tr[1].TSeq != 2 {
		t.Fatalf("alice's transcript: %+v", tr)
	}
	if e, err := d.ByRef("alice", "s", 2); err != nil || e.ID != long {
		t.Fatalf("ByRef out:2: %v %+v", err, e)
	}
	if _, err := d.ByRef("bob", "s", 2); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ByRef of another principal: %v", err)
	}
	if n, _ := d.MaxRef("alice", "s"); n != 2 {
		t.Fatalf("MaxRef %d", n)
	}
	d.Close()

	d, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.LastSeq() != 4 {
		t.Fatalf("reopened LastSeq %d", d.LastSeq())
	}
	if n, _ := d.LastTSeq("alice", "s"); n != 2 {
		t.Fatalf("reopened LastTSeq %d", n)
	}
	c := &Entry{Session: "s", Principal: "alice", Src: "3", OK: true, Transcript: true}
	if _, err := d.Record(c); err != nil || c.Seq != 5 || c.TSeq != 3 {
		t.Fatalf("after reopen: %v seq %d tseq %d", err, c.Seq, c.TSeq)
	}
	rows, bytes, err := d.Stats()
	if err != nil || rows != 5 || bytes <= 0 {
		t.Fatalf("stats %d %d %v", rows, bytes, err)
	}
	if n, err := d.Prune(long + 1); err != nil || n != 2 {
		t.Fatalf("prune: %d %v", n, err)
	}
	if _, err := d.Get(long); !errors.Is(err, ErrNotFound) {
		t.Fatalf("pruned row: %v", err)
	}
	if rows, _, _ := d.Stats(); rows != 3 {
		t.Fatalf("rows after prune %d", rows)
	}
}
