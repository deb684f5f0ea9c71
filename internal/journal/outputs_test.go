package journal

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestDecodeOutputs(t *testing.T) {
	for _, outs := range [][]Output{
		{},
		{{Kind: OutValue, Hash: "blake3:ab", Len: 0}},
		{{Kind: OutValue, Hash: "blake3:ab", Len: 812}, {Kind: OutStdout, Hash: "blake3:cd", Len: 1 << 40}, {Kind: OutStderr, Hash: `odd"\hash`, Len: 3}},
	} {
		b, _ := json.Marshal(outs)
		got, err := decodeOutputs(string(b))
		if err != nil || !reflect.DeepEqual(got, outs) {
			t.Errorf("decode %s = %+v, %v", b, got, err)
		}
	}
	// SQLite's json_group_array form (the v1 migration) and spaced JSON.
	for _, s := range []string{`[{"kind":"value","hash":"h","len":4}]`, `[ {"kind": "value", "hash": "h", "len": 4} ]`, `[{"hash":"h","kind":"value","len":4}]`} {
		got, err := decodeOutputs(s)
		if err != nil || len(got) != 1 || got[0] != (Output{Kind: OutValue, Hash: "h", Len: 4}) {
			t.Errorf("decode %s = %+v, %v", s, got, err)
		}
	}
	if _, err := decodeOutputs(`[{"kind":"value","hash":"h","len":x}]`); err == nil {
		t.Error("garbage decoded")
	}
}

func FuzzDecodeOutputs(f *testing.F) {
	f.Add(`[{"kind":"value","hash":"h","len":4}]`)
	f.Add(`[]`)
	f.Add(`[{"kind":"value","hash":"h","len":9223372036854775807},{"kind":"stdout","hash":"g","len":-12}]`)
	f.Add(`[{"kind":"value","hash":"h","len":9223372036854775808}]`)
	f.Fuzz(func(t *testing.T, s string) {
		fast, ok := fastOutputs(s)
		if !ok {
			return
		}
		var slow []Output
		if err := json.Unmarshal([]byte(s), &slow); err != nil || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: fast %+v, encoding/json %+v (%v)", s, fast, slow, err)
		}
	})
}

// outputsJSON writes what encoding/json writes, byte for byte, whether by
// hand (plain kinds and hashes) or not.
func TestOutputsJSONMatchesEncodingJSON(t *testing.T) {
	for _, outs := range [][]Output{
		nil,
		{},
		{{Kind: OutValue, Hash: "blake3:ab", Len: 0}},
		{{Kind: OutValue, Hash: "blake3:ab", Len: -812}, {Kind: OutStdout, Hash: "blake3:cd", Len: 1 << 40}},
		{{Kind: OutStderr, Hash: `odd"\hash`, Len: 3}},
		{{Kind: "a<b>&c", Hash: "é\x00\x7f", Len: 3}},
	} {
		checkOutputsJSON(t, outs)
	}
}

func checkOutputsJSON(t *testing.T, outs []Output) {
	t.Helper()
	want := []Output{}
	if outs != nil {
		want = outs
	}
	wantB, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := outputsJSON(outs)
	if err != nil || string(got) != string(wantB) {
		t.Fatalf("outputsJSON(%+v) = %s, %v; encoding/json %s", outs, got, err, wantB)
	}
}

func FuzzOutputsJSON(f *testing.F) {
	f.Add("value", "blake3:ab", int64(4))
	f.Add("a\"<", "\xff", int64(-1))
	f.Fuzz(func(t *testing.T, kind, hash string, n int64) {
		checkOutputsJSON(t, []Output{{Kind: kind, Hash: hash, Len: n}, {Kind: hash, Hash: kind, Len: -n}})
	})
}

// TestDecodeOutputsTo: rows decoded into one page's array read as each
// decoded alone, and appending to one row's outputs leaves the next
// row's as they were.
func TestDecodeOutputsTo(t *testing.T) {
	rows := []string{
		`[{"kind":"value","hash":"h1","len":4},{"kind":"stdout","hash":"h2","len":0}]`,
		`[]`,
		`[ {"kind":"value","hash":"h3","len":1} ]`, // not the journal's shape: encoding/json
		`[{"kind":"stderr","hash":"h4","len":12}]`,
		`[{"kind":"value","hash":"h5","len":7},{"kind":"undo","hash":"h6","len":9},{"kind":"stdout","hash":"h7","len":1}]`,
	}
	arena := make([]Output, 0, 2)
	var got [][]Output
	for _, s := range rows {
		outs, err := decodeOutputsTo(&arena, s)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, outs)
	}
	_ = append(got[0], Output{Kind: "x"}) // must not reach row 1's or 3's
	for i, s := range rows {
		want, err := decodeOutputs(s)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i], want) || got[i] == nil {
			t.Errorf("row %d: %+v, want %+v", i, got[i], want)
		}
	}
	if _, err := decodeOutputsTo(&arena, `[{"kind":`); err == nil {
		t.Error("a broken outputs column decoded")
	}
}
