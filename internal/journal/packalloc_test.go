package journal

import (
	"encoding/json"
	"testing"
)

// Packing a row allocates its text once: the AST is not copied to a
// string on the way in, nor the text to a string on the way out; and the
// text reads back as the row packed.
func TestPackEntryAllocatesOnce(t *testing.T) {
	st := 3
	e := &Entry{Kind: KindExec, Parent: 7, Session: "load-1", Principal: "owner", StartNS: 1765000000000000000,
		FinishNS: 1765000000000001000, Finished: true, Cwd: "/w", Src: "1 + 1", Head: "1", OK: true, Status: &st,
		AST: json.RawMessage(`{"k":"prog","b":[{"k":"bin","op":"+"}]}`), Effects: json.RawMessage(`["pure"]`),
		Verdict: "allow", RefN: 12, Code: "", Seq: 40, TSeq: 9}
	outs := `[{"kind":"value","hash":"h","len":1}]`
	if n := testing.AllocsPerRun(100, func() { _ = packEntry(e, 5, outs) }); n != 1 {
		t.Fatalf("packEntry allocates %v times, want 1", n)
	}
	p := packEntry(e, 5, outs)
	var got Entry
	var status int
	mask, gotOuts, err := unpackRow(p, &got, &status)
	if err != nil {
		t.Fatal(err)
	}
	if mask != 5 || gotOuts != outs || string(got.AST) != string(e.AST) || string(got.Effects) != string(e.Effects) ||
		got.Src != e.Src || got.Session != e.Session || got.StartNS != e.StartNS || got.TSeq != e.TSeq || status != st {
		t.Fatalf("unpacked %+v (mask %d, outputs %q, status %d); want %+v", got, mask, gotOuts, status, *e)
	}
}
