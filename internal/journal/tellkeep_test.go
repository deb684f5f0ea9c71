package journal

import (
	"fmt"
	"testing"
)

// A written batch hands its told rows' buffer on to the next batch,
// emptied and cleared, and the rows told through a reused buffer are each
// the row written (not a row of an earlier batch left in it).
func TestTellBufferHandedOn(t *testing.T) {
	d := openTemp(t)
	type told struct {
		id  int64
		seq uint64
		src string
	}
	var got []told
	d.OnFinish(func(e *Entry) { got = append(got, told{e.ID, e.Seq, e.Src}) })
	const rows = 20
	var want []told
	for i := range rows {
		e := &Entry{Session: "s", Principal: "p", Src: fmt.Sprintf("%d + 1", i), OK: true}
		id, err := d.Record(e)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, told{id, e.Seq, e.Src})
		d.fmu.Lock()
		spare := d.spare
		d.fmu.Unlock()
		if i == 0 {
			continue // the first batch had no buffer handed to it
		}
		if spare == nil || cap(spare.tell) == 0 {
			t.Fatalf("after row %d: the spare batch has no told rows' buffer", i)
		}
		if len(spare.tell) != 0 {
			t.Fatalf("after row %d: the spare batch's told rows hold %d rows", i, len(spare.tell))
		}
		if full := spare.tell[:cap(spare.tell)]; full[0].Src != "" || full[0].ID != 0 {
			t.Fatalf("after row %d: the handed-on buffer still holds row %d (%q)", i, full[0].ID, full[0].Src)
		}
	}
	if len(got) != rows {
		t.Fatalf("told of %d rows, want %d", len(got), rows)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d told as %+v, want %+v", i, got[i], want[i])
		}
	}
}

// A told rows' buffer past maxKeptTell is not handed on.
func TestTellBufferBounded(t *testing.T) {
	if keptTell(make([]Entry, 3, maxKeptTell+1)) != nil {
		t.Fatal("a buffer past maxKeptTell was handed on")
	}
	k := keptTell(make([]Entry, 3, maxKeptTell))
	if k == nil || len(k) != 0 || cap(k) != maxKeptTell {
		t.Fatalf("keptTell = len %d cap %d, want an empty buffer of cap %d", len(k), cap(k), maxKeptTell)
	}
}
