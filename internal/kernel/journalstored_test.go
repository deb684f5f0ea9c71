package kernel

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/proto"
)

// storedOutputsCase is a row whose outputs text is written over by hand
// (as a database edited outside the journal would be), and whether a
// query over it must fail.
type storedOutputsCase struct {
	name, text string
	fails      bool
}

var storedOutputsCases = []storedOutputsCase{
	// Valid JSON in another shape than the journal's: decoded and encoded
	// again, as before.
	{"spaces", `[ {"kind": "value", "hash": "blake3:ab", "len": 1} ]`, false},
	{"empty with a space", `[ ]`, false},
	{"members reordered", `[{"hash":"blake3:ab","kind":"stdout","len":2}]`, false},
	{"member added", `[{"kind":"value","hash":"blake3:ab","len":3,"extra":[1,{"a":2}]}]`, false},
	{"escaped hash", `[{"kind":"value","hash":"blake3:\u00e9\u003c\"\\","len":4}]`, false},
	{"minus zero", `[{"kind":"value","hash":"blake3:ab","len":-0}]`, false},
	{"invalid UTF-8", "[{\"kind\":\"value\",\"hash\":\"blake3:\xff\xfe\",\"len\":5}]", false},
	{"null", `null`, false},
	// Not outputs at all: the query fails.
	{"truncated", `[{"kind":"value","hash":"blake3:ab","len":1}`, true},
	{"not JSON", `[{"kind":"value","hash":"blake3:ab","len":1}]x`, true},
	{"too deep", strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000), true},
	{"nested arrays", strings.Repeat("[", 50) + strings.Repeat("]", 50), true},
	{"exponent", `[{"kind":"value","hash":"blake3:ab","len":1e2}]`, true},
	{"leading zero", `[{"kind":"value","hash":"blake3:ab","len":01}]`, true},
	{"overflow", `[{"kind":"value","hash":"blake3:ab","len":99999999999999999999}]`, true},
	{"control byte", "[{\"kind\":\"value\",\"hash\":\"blake3:a\x01\",\"len\":1}]", true},
	{"empty", ``, true},
	{"object", `{"kind":"value"}`, true},
}

// storedOutputsJournal writes a journal with rows of varied outputs, of
// three principals (their own ids differ from the ids), then the rows of
// storedOutputsCases (of agent:edited), and edits those rows' outputs
// text by hand. It
// returns the journal reopened, and the ids of the edited rows by case.
func storedOutputsJournal(t *testing.T) (*journal.DB, map[string]int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.db")
	db, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	hash := "blake3:0c5f2e9f3b1c4d6a8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7"
	outputs := [][]journal.Output{
		nil,
		{},
		{{Kind: journal.OutValue, Hash: hash, Len: 812}},
		{{Kind: journal.OutValue, Hash: hash, Len: 812}, {Kind: journal.OutStdout, Hash: hash, Len: 1 << 40}, {Kind: journal.OutStderr, Hash: hash, Len: 0}},
		// Hashes JSON writes escaped (the journal stores encoding/json's
		// text for them) and ones it does not (non-ASCII).
		{{Kind: journal.OutStdout, Hash: "blake3:<a&b>\"q\"\\", Len: 9}},
		{{Kind: journal.OutStdout, Hash: "blake3:é日本\u2028", Len: 9}},
		{{Kind: journal.OutStdout, Hash: "blake3:é日本", Len: 9}, {Kind: journal.OutValue, Hash: "blake3:ünïcode 😀", Len: 10}},
		{{Kind: journal.OutStderr, Hash: "blake3:tab\there\nnl", Len: 9}},
		{{Kind: journal.OutUndo, Hash: hash, Len: 1<<63 - 1}},
		// A large value's outputs: many of them, near the journal's bound.
		manyOutputs(journal.MaxOutputs, hash),
	}
	st := 1
	for i := range 90 {
		e := journal.Entry{Session: "s" + strconv.Itoa(i%3), Principal: "agent:p" + strconv.Itoa(i%3), Cwd: "/tmp/ä",
			Src: "echo " + strconv.Itoa(i) + " \"q\" é", Verdict: "allow", OK: i%4 != 0, Outputs: outputs[i%len(outputs)],
			AST: json.RawMessage(`{"k":"cmd"}`), Effects: json.RawMessage(`[{"kind":"fs_read","path":"/x"}]`)}
		if i%4 == 0 {
			e.Status = &st
			e.Code = "E_FAIL"
		}
		if i%11 == 5 {
			_, err = db.Begin(&e) // unfinished: its outputs are none
		} else {
			_, err = db.Record(&e)
		}
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	ids := map[string]int64{}
	for i, c := range storedOutputsCases {
		marker := "blake3:case" + strconv.Itoa(i)
		e := journal.Entry{Session: "edited", Principal: "agent:edited", Src: c.name,
			Outputs: []journal.Output{{Kind: journal.OutValue, Hash: marker, Len: 1}}}
		id, err := db.Record(&e)
		if err != nil {
			t.Fatal(err)
		}
		ids[c.name] = id
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range storedOutputsCases {
		old := `[{"kind":"value","hash":"blake3:case` + strconv.Itoa(i) + `","len":1}]`
		var packed string
		if err := raw.QueryRow(`SELECT packed FROM entries WHERE id = ?`, ids[c.name]).Scan(&packed); err != nil {
			t.Fatal(err)
		}
		field := strconv.Itoa(len(old)) + ":" + old
		if strings.Count(packed, field) != 1 {
			t.Fatalf("%s: the outputs are not in the packed row %q", c.name, packed)
		}
		packed = strings.Replace(packed, field, strconv.Itoa(len(c.text))+":"+c.text, 1)
		if _, err := raw.Exec(`UPDATE entries SET packed = ? WHERE id = ?`, packed, ids[c.name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = journal.Open(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, ids
}

func manyOutputs(n int, hash string) []journal.Output {
	outs := make([]journal.Output, n)
	for i := range outs {
		outs[i] = journal.Output{Kind: journal.OutStdout, Hash: hash, Len: int64(i) * 4096}
	}
	return outs
}

// storedAnswer is the journal.query answer for q over db as the handler
// writes it (own ids for an own-scope query), or the query's error; with
// stored, outputs pass through as their stored text.
func storedAnswer(t *testing.T, db *journal.DB, q journal.Query, stored bool) (string, []journal.Entry, error) {
	t.Helper()
	q.Stored = stored
	entries, _, err := db.Query(q)
	if err != nil {
		return "", nil, err
	}
	if q.OwnIDs {
		for i := range entries {
			entries[i].ID = entries[i].PID
		}
	}
	frame, err := journalAnswer(&proto.Request{ID: json.RawMessage("7")}, entries)
	if err != nil {
		t.Fatal(err)
	}
	s := string(frame)
	releaseFrame(frame)
	return s, entries, nil
}

// A journal.query answer with stored outputs passed through is, byte for
// byte, the answer with every row's outputs decoded and encoded again,
// over rows of every outputs shape the journal writes (none, several,
// hashes JSON escapes and non-ASCII ones, a row at the outputs bound,
// unfinished rows), in the owner's view and in a principal's own-id view,
// paged; and the rows passed through are exactly those whose stored text
// is the encoding, no others. A row whose outputs text was edited into
// another JSON shape is decoded as before; one edited into what is not
// outputs fails the query with the error it failed with before.
func TestJournalAnswerStoredOutputsSameBytes(t *testing.T) {
	db, ids := storedOutputsJournal(t)
	firstEdited := ids[storedOutputsCases[0].name]
	queries := []journal.Query{
		{Limit: journal.MaxQueryLimit, Cursor: journal.CursorAfter(firstEdited)},
		{Limit: 7, Cursor: journal.CursorAfter(firstEdited)},
		{Limit: 100, Principal: "agent:p1", Cursor: journal.CursorAfter(firstEdited)},
		{Limit: 100, Principals: []string{"agent:p2"}, OwnIDs: true},
		{Limit: 100, Kind: "*", Cursor: journal.CursorAfter(firstEdited)},
	}
	passed, decoded := 0, 0
	for _, q := range queries {
		for {
			want, _, err := storedAnswer(t, db, q, false)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			got, entries, err := storedAnswer(t, db, q, true)
			if err != nil {
				t.Fatalf("%+v stored: %v", q, err)
			}
			if got != want {
				t.Fatalf("%+v: answers differ:\n got %.2000s\nwant %.2000s", q, got, want)
			}
			var v struct {
				Result []json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal([]byte(got), &v); err != nil || len(v.Result) != len(entries) {
				t.Fatalf("%+v: answer is not JSON of %d entries: %v", q, len(entries), err)
			}
			for i := range entries {
				if text, ok := entries[i].StoredOutputs(); ok {
					passed++
					if entries[i].Outputs != nil {
						t.Fatalf("row %d: outputs passed through and decoded", entries[i].ID)
					}
					var outs []journal.Output
					if err := json.Unmarshal([]byte(text), &outs); err != nil {
						t.Fatal(err)
					}
					if enc := string(appendOutputsJSON(nil, outs)); enc != text {
						t.Fatalf("row %d: passed through %q, which encodes as %q", entries[i].ID, text, enc)
					}
				} else if decoded++; !json.Valid(appendOutputsJSON(nil, entries[i].Outputs)) {
					t.Fatalf("row %d: outputs decoded to what does not encode", entries[i].ID)
				}
			}
			last := entries[len(entries)-1].ID
			if q.OwnIDs {
				last = entries[len(entries)-1].PID
			}
			if len(entries) < q.Limit || last <= 1 {
				break
			}
			q.Cursor = journal.CursorAfter(last)
		}
	}
	if passed == 0 || decoded == 0 {
		t.Fatalf("%d rows' outputs passed through, %d decoded: want some of each", passed, decoded)
	}
	t.Logf("%d rows' outputs passed through, %d decoded", passed, decoded)
	// Each edited row alone: the same answer, or the same error.
	for _, c := range storedOutputsCases {
		q := journal.Query{Limit: 1, Cursor: journal.CursorAfter(ids[c.name] + 1)}
		want, _, wantErr := storedAnswer(t, db, q, false)
		got, entries, err := storedAnswer(t, db, q, true)
		if c.fails {
			if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("%s: stored %v, decoded %v; want the same error", c.name, err, wantErr)
			}
			continue
		}
		if err != nil || wantErr != nil {
			t.Fatalf("%s: %v, %v", c.name, err, wantErr)
		}
		if got != want || !json.Valid([]byte(got)) {
			t.Fatalf("%s: answers differ:\n got %s\nwant %s", c.name, got, want)
		}
		if _, ok := entries[0].StoredOutputs(); ok {
			t.Fatalf("%s: %q passed through", c.name, c.text)
		}
	}
}

// appendOutputsJSON is the outputs member of appendEntryJSON for decoded
// outputs.
func appendOutputsJSON(b []byte, outs []journal.Output) []byte {
	e := journal.Entry{Outputs: outs}
	full := appendEntryJSON(nil, &e, false)
	i := strings.LastIndex(string(full), `,"outputs":`)
	return append(b, full[i+len(`,"outputs":`):len(full)-1]...)
}
