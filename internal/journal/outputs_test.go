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
