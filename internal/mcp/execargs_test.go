package mcp

import (
	"encoding/json"
	"testing"
)

// execArgsCases are argument objects, odd and plain, that decodeExecArgs
// either reads as json.Unmarshal does or declines.
var execArgsCases = []string{
	`{"mode":"run","position":"value","src":"6 * 7"}`,
	`{"mode":"run","position":"value","src":"6 * 7","timeout_ms":250}`,
	`{"src":"echo \"a\\tb\"\n\u003cx\u003e \u00e9 \ud83d\ude00 \ud800 \\u0041"}`,
	`{"src":"\u2028\u2029\/\b\f\r"}`,
	` { "src" : "a" , "mode" : "plan" } `,
	`{}`,
	`{"src":""}`,
	`{"timeout_ms":0}`,
	`{"timeout_ms":123456789012345}`,
	`{"background":false,"mode":"run","position":"value","src":"[3, 1, 2].sort()"}`,
	`{"background":true,"mode":"run","position":"value","src":"a\nb \u003c\u0026\u003e"}`,
	// declined, or refused by both
	"{\"src\":\"\xff\xfe invalid\"}",
	`{"timeout_ms":1234567890123456}`,
	`{"timeout_ms":99999999999999999999}`,
	`{"timeout_ms":-1}`,
	`{"timeout_ms":1.5}`,
	`{"timeout_ms":1e3}`,
	`{"timeout_ms":01}`,
	`{"timeout_ms":"1"}`,
	`{"src":5}`,
	`{"src":null}`,
	`{"src":"a","src":"b"}`,
	`{"SRC":"a"}`,
	`{"Src":"a","src":"b"}`,
	`{"src":"b","Src":"a"}`,
	`{"s\u0072c":"a"}`,
	`{"src":"a","bogus":1}`,
	`{"src":"a","background":null}`,
	`{"src":"a","background":1}`,
	`{"src":"a","background":"true"}`,
	`{"src":"a","elide":{"max_items":3}}`,
	`{"src":"a","elide":null}`,
	`{"src":"a",}`,
	`{"src":"a"`,
	`{"src":"a"}x`,
	`[]`,
	`null`,
	`"src"`,
	``,
	`{"src":"a\u0000b"}`,
	"{\"src\":\"a\x01\"}",
}

// TestExecArgsMatchUnmarshal: for each case, decodeExecArgs declines or
// gives what json.Unmarshal gives, and the plain shapes are not declined.
func TestExecArgsMatchUnmarshal(t *testing.T) {
	taken := 0
	for _, data := range execArgsCases {
		if checkExecArgs(t, []byte(data)) {
			taken++
		}
	}
	if taken < 11 {
		t.Errorf("%d cases read, want the eleven plain ones at least", taken)
	}
	for _, plain := range execArgsCases[:11] {
		if _, ok := decodeExecArgs([]byte(plain)); !ok {
			t.Errorf("%s declined", plain)
		}
	}
}

// checkExecArgs compares the two decoders on data, reporting whether the
// fast one read it.
func checkExecArgs(t *testing.T, data []byte) bool {
	t.Helper()
	got, ok := decodeExecArgs(data)
	var want execArgs
	err := json.Unmarshal(data, &want)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%q: read as %+v where json.Unmarshal fails: %v", data, got, err)
	}
	if got.Src != want.Src || got.Mode != want.Mode || got.Position != want.Position ||
		got.Background != want.Background || got.TimeoutMS != want.TimeoutMS || got.Elide != nil || want.Elide != nil {
		t.Fatalf("%q: %+v, json.Unmarshal %+v", data, got, want)
	}
	return true
}

// FuzzExecArgs: decodeExecArgs and json.Unmarshal agree, or the fast one
// declines (and toolExec falls back to json.Unmarshal).
func FuzzExecArgs(f *testing.F) {
	for _, c := range execArgsCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkExecArgs(t, data)
	})
}

// TestExecArgsReadsDefaulted: what shoal_exec's handler gets for the
// arguments clients send (the schema's defaults applied, by the src-only
// path or toolInput) is read by decodeExecArgs, not declined.
func TestExecArgsReadsDefaulted(t *testing.T) {
	r := resolvedTool(t, "shoal_exec")
	so := newSrcOnly(r)
	for _, args := range []string{`{"src":"[3, 1, 2].sort()"}`, `{"src":"echo \"<a>\"\n\u00e9"}`, `{"src":"ls","timeout_ms":5000,"position":"stmt"}`, `{"src":"x","mode":"plan","background":true}`} {
		in, ok := so.input(json.RawMessage(args))
		if !ok {
			var err error
			if in, err = toolInput(json.RawMessage(args), r); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok := decodeExecArgs(in); !ok {
			t.Errorf("%s, defaulted %s: declined", args, in)
		}
		checkExecArgs(t, in)
	}
}
