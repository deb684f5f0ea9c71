package journal

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// A page that Query reads (columns scanned once per page, the AST and
// effects copied into a shared arena) holds what each row decodes to on
// its own, read the plain way: database/sql's conversions and
// unpackRow's own allocations. Rows vary in every field the packed column
// and the integer columns carry, including NULL AST and effects, a NULL
// status, interrupted and unfinished rows, and no outputs.
func TestQueryPageMatchesRowByRow(t *testing.T) {
	d := openTemp(t)
	for i := range 60 {
		st := i - 30
		e := Entry{Session: "s" + strconv.Itoa(i%4), Principal: "agent:p" + strconv.Itoa(i%3), Cwd: "/tmp/ä",
			Src: "echo " + strconv.Itoa(i) + " \"q\"", Verdict: "allow", RefN: int64(i), Transcript: i%2 == 0, Opaque: i%5 == 0}
		if i%3 != 0 {
			e.AST = json.RawMessage(`{"stmts":[{"k":"cmd","i":` + strconv.Itoa(i) + `}]}`)
		}
		if i%4 != 0 {
			e.Effects = json.RawMessage(`[{"kind":"fs_read","path":"/x"}]`)
		}
		if i%6 != 0 {
			e.Status = &st
		}
		for k := range i % 4 {
			e.Outputs = append(e.Outputs, Output{Kind: OutStdout, Hash: "blake3:" + strconv.Itoa(k), Len: int64(k * 100)})
		}
		var err error
		if i%7 == 3 {
			_, err = d.Begin(&e) // left unfinished
		} else {
			_, err = d.Record(&e)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []Query{{Limit: 100}, {Principal: "agent:p1", Limit: 7}, {Principals: []string{"agent:p2"}, OwnIDs: true, Limit: 100}} {
		page, _, err := d.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			t.Fatalf("%+v: no rows", q)
		}
		for _, got := range page {
			want := rowByRow(t, d, got.ID)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("row %d:\n page %+v\n  row %+v", got.ID, got, want)
			}
		}
		ReleasePage(page)
	}
}

// rowByRow reads row id the plain way.
func rowByRow(t *testing.T, d *DB, id int64) Entry {
	t.Helper()
	var e Entry
	var intr int
	var packed string
	err := d.db.QueryRow(`SELECT `+entryCols+` FROM entries WHERE id = ?`, id).Scan(&e.ID, &intr, &packed, &e.PSeq, &e.PID)
	if err != nil {
		t.Fatal(err)
	}
	mask, outs, err := unpackRow(packed, &e, new(int))
	if err != nil {
		t.Fatal(err)
	}
	e.Interrupted = e.Interrupted || intr != 0
	e.EffectKinds = d.bits.kinds(mask)
	if e.Outputs, err = decodeOutputs(outs); err != nil {
		t.Fatal(err)
	}
	return e
}

// scannedInt reads what Scan into an integer read: the driver's int64, or
// decimal text.
func TestScannedInt(t *testing.T) {
	for _, c := range []struct {
		v    any
		want int64
		ok   bool
	}{{int64(-5), -5, true}, {"42", 42, true}, {[]byte("7"), 7, true}, {"x", 0, false}, {nil, 0, false}, {1.5, 0, false}} {
		got, err := scannedInt(c.v)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("scannedInt(%#v) = %d, %v", c.v, got, err)
		}
	}
}

// A rawArena's values are their texts, clipped (an append never reaches
// the next value), a page of like rows takes one chunk, and no chunk
// passes rawChunkMax unless one row's texts do.
func TestRawArena(t *testing.T) {
	var a rawArena
	var got []json.RawMessage
	for i := range 100 {
		a.left = 100 - i
		ast, eff := `{"i":`+strconv.Itoa(i%10)+`}`, `[{"kind":"fs_read"}]`
		a.reserve(len(ast) + len(eff))
		got = append(got, a.copy(ast), a.copy(eff))
	}
	for i := 0; i < len(got); i += 2 {
		if string(got[i]) != `{"i":`+strconv.Itoa(i/2%10)+`}` || string(got[i+1]) != `[{"kind":"fs_read"}]` || cap(got[i]) != len(got[i]) {
			t.Fatalf("value %d: %q %q (cap %d)", i, got[i], got[i+1], cap(got[i]))
		}
	}
	_ = append(got[0], 'x')
	if string(got[1]) != `[{"kind":"fs_read"}]` {
		t.Fatalf("an append reached the next value: %q", got[1])
	}
	if &got[0][0] != &a.buf[0] {
		t.Fatal("a page of like rows took more than one chunk")
	}
	a.left = 1000
	a.reserve(rawChunkMax) // a full chunk cannot hold it: a new one, at the bound
	if cap(a.buf) != rawChunkMax {
		t.Fatalf("chunk of %d bytes, want %d", cap(a.buf), rawChunkMax)
	}
	big := strings.Repeat("x", rawChunkMax+1)
	if v := a.copy(big); string(v) != big || cap(a.buf) != len(big) {
		t.Fatalf("a text larger than the bound: cap %d", cap(a.buf))
	}
	var none *rawArena
	if v := none.copy("[]"); string(v) != "[]" {
		t.Fatalf("nil arena: %q", v)
	}
}
