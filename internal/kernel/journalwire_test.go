package kernel

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/journal"
)

// sameEntryJSON reports whether a and b decode to the same value.
func sameEntryJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("hand-written entry is not JSON: %v\n%s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func checkEntryJSON(t *testing.T, e *journal.Entry) {
	t.Helper()
	want, err := json.Marshal(wireEntry(e))
	if err != nil {
		t.Fatal(err)
	}
	if got := appendEntryJSON(nil, e, false); !sameEntryJSON(t, got, want) {
		t.Fatalf("entry JSON differs:\n got %s\nwant %s", got, want)
	}
	// As an event: no AST, the source cut like a transcript event's.
	w := wireEntry(e)
	w.AST = json.RawMessage("null")
	if len(w.Src) > MaxTranscriptSrc {
		w.Src, w.SrcTruncated = cutUTF8(w.Src, MaxTranscriptSrc), true
	}
	if want, err = json.Marshal(w); err != nil {
		t.Fatal(err)
	}
	if got := appendEntryJSON(nil, e, true); !sameEntryJSON(t, got, want) {
		t.Fatalf("event JSON differs:\n got %s\nwant %s", got, want)
	}
	// The live event's two payloads, encoded once, are the replayed
	// ones byte for byte, and neither can grow into the other.
	all, own := livePayloads(e)
	wantAll, _ := journalPayload(e)
	if string(all) != string(wantAll) || string(own) != string(ownPayload(e)) {
		t.Fatalf("live payloads differ:\n got %s\n     %s\nwant %s\n     %s", all, own, wantAll, ownPayload(e))
	}
	if cap(all) != len(all) || cap(own) != len(own) {
		t.Fatalf("live payloads have room to grow: cap %d/%d, len %d/%d", cap(all), cap(own), len(all), len(own))
	}
}

func TestEntryJSONMatchesEncodingJSON(t *testing.T) {
	st := 3
	for _, e := range []journal.Entry{
		{},
		{ID: 7, PID: 3, Session: "s", Principal: "agent:p", StartNS: 100, FinishNS: 250, Finished: true, Cwd: "/tmp",
			Src: "ls <a> & \"b\"\n\t\x00\xff é", AST: json.RawMessage(`{"k":"cmd","args":["<"]}`),
			Effects: json.RawMessage(`[{"kind":"fs_read","path":"/tmp"}]`), Status: &st, OK: false, Opaque: true,
			Verdict: "deny", Outputs: []journal.Output{{Kind: "value", Hash: "blake3:ab", Len: 2}, {Kind: "stdout", Hash: "blake3:cd", Len: 0}}},
		{ID: 1, Interrupted: true, Src: "rm x", Effects: json.RawMessage(`[]`)},
		{ID: 2, Finished: true, Src: strings.Repeat("é", MaxTranscriptSrc), AST: json.RawMessage(`{"k":"x"}`)},
	} {
		checkEntryJSON(t, &e)
	}
}

func FuzzEntryJSON(f *testing.F) {
	f.Add("s", "p", "src \x00 <>&", "/cwd", int64(5), true)
	f.Fuzz(func(t *testing.T, session, principal, src, cwd string, n int64, on bool) {
		e := journal.Entry{ID: n, Session: session, Principal: principal, Src: src, Cwd: cwd, StartNS: n, FinishNS: n + 3,
			Finished: on, Interrupted: !on, OK: on, Verdict: src, Outputs: []journal.Output{{Kind: session, Hash: principal, Len: n}}}
		if on {
			st := int(n)
			e.Status = &st
			e.AST = json.RawMessage(`{"k":"x"}`)
		}
		checkEntryJSON(t, &e)
	})
}
