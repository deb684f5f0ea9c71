package journal

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// wireOutputs is outputs as the kernel's journal.query answer encodes
// decoded ones.
func wireOutputs(outs []Output) string { return string(AppendOutputsJSON(nil, outs)) }

// checkStoredOutputs holds storedOutputs to its promise: it accepts s
// only when s decodes (as a Query decodes it) to outputs whose wire
// encoding is s itself, and it accepts every such s whose kinds and
// hashes need no escape (an escaped one is decoded and encoded again).
func checkStoredOutputs(t *testing.T, s string) {
	t.Helper()
	outs, err := decodeOutputs(s)
	same := err == nil && wireOutputs(outs) == s
	got := storedOutputs(s)
	if got && !same || same && !got && !strings.Contains(s, `\`) {
		t.Fatalf("storedOutputs(%q) = %v; decoded %v (%v), encoded again the same: %v", s, got, outs, err, same)
	}
}

func TestStoredOutputs(t *testing.T) {
	hash := "blake3:0c5f2e9f3b1c4d6a8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7"
	one := `{"kind":"value","hash":"` + hash + `","len":812}`
	cases := []string{
		`[]`, `[` + one + `]`, `[` + one + `,` + one + `,` + one + `]`,
		`[{"kind":"stdout","hash":"blake3:é日本","len":0}]`, `[{"kind":"","hash":"","len":-5}]`,
		`[{"kind":"undo","hash":"x","len":9223372036854775807}]`, `[{"kind":"undo","hash":"x","len":-9223372036854775808}]`,
		// What the journal stores, then what is not it.
		``, `[`, `]`, `[ ]`, `null`, `{}`, `[` + one, `[` + one + `,]`, `[` + one + `]x`, `[` + one + `] `,
		`[{"kind":"value","hash":"x","len":-0}]`, `[{"kind":"value","hash":"x","len":01}]`, `[{"kind":"value","hash":"x","len":+1}]`,
		`[{"kind":"value","hash":"x","len":1e2}]`, `[{"kind":"value","hash":"x","len":1.0}]`, `[{"kind":"value","hash":"x","len":}]`,
		`[{"kind":"value","hash":"x","len":9223372036854775808}]`, `[{"kind":"value","hash":"x","len":99999999999999999999}]`,
		`[{"kind":"value","hash":"x","len":1,"more":1}]`, `[{"hash":"x","kind":"value","len":1}]`,
		`[{"kind":"value","hash":"\u0078","len":1}]`, `[{"kind":"value","hash":"a\"b","len":1}]`,
		"[{\"kind\":\"value\",\"hash\":\"\xff\",\"len\":1}]", "[{\"kind\":\"value\",\"hash\":\"a\x1f\",\"len\":1}]",
		"[{\"kind\":\"value\",\"hash\":\"a\x7f\u2028\",\"len\":1}]",
		strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000), `[[]]`, `[{}]`,
	}
	for _, c := range cases {
		checkStoredOutputs(t, c)
	}
	// What the journal writes for outputs is passed through unless a kind
	// or hash needs an escape.
	for _, outs := range [][]Output{nil, {}, {{Kind: OutValue, Hash: hash, Len: 1}}, {{Kind: OutStdout, Hash: "blake3:<&>", Len: 2}},
		{{Kind: OutStderr, Hash: "é\u2028", Len: 3}}, {{Kind: OutUndo, Hash: "q\"", Len: 4}}, {{Kind: OutValue, Hash: "ü", Len: 5}}} {
		b, err := outputsJSON(outs)
		if err != nil {
			t.Fatal(err)
		}
		checkStoredOutputs(t, string(b))
	}
}

func FuzzStoredOutputs(f *testing.F) {
	f.Add(`[{"kind":"value","hash":"blake3:00","len":1},{"kind":"stdout","hash":"blake3:01","len":-7}]`)
	f.Add(`[{"kind":"value","hash":"x","len":-0}]`)
	f.Add("[{\"kind\":\"value\",\"hash\":\"é\xff\",\"len\":1}]")
	f.Fuzz(func(t *testing.T, s string) { checkStoredOutputs(t, s) })
}

// A Query with Stored reads the same rows as without, but for the
// outputs of the rows whose stored text storedOutputs accepts, which it
// leaves as that text (nil Outputs), and which decode to the outputs the
// plain read gives; and the AST and effects, left as their texts, and
// the effect kinds, not read.
func TestQueryStoredOutputsMatchesRowByRow(t *testing.T) {
	d := openTemp(t)
	for i := range 40 {
		e := Entry{Session: "s", Principal: "agent:p" + strconv.Itoa(i%2), Src: "echo " + strconv.Itoa(i), Verdict: "allow"}
		if i%3 != 0 {
			e.AST = json.RawMessage(`{"stmts":[{"k":"cmd","i":` + strconv.Itoa(i) + `}]}`)
		}
		if i%4 != 0 {
			e.Effects = json.RawMessage(`[{"kind":"fs_read","path":"/x"}]`)
		}
		for k := range i % 4 {
			hash := "blake3:" + strconv.Itoa(k)
			if i%5 == 0 {
				hash += "<\"é" // stored escaped: decoded
			}
			e.Outputs = append(e.Outputs, Output{Kind: OutStdout, Hash: hash, Len: int64(k * 100)})
		}
		var err error
		if i%7 == 3 {
			_, err = d.Begin(&e)
		} else {
			_, err = d.Record(&e)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	passed, decoded := 0, 0
	for _, q := range []Query{{Limit: 100}, {Principals: []string{"agent:p1"}, OwnIDs: true, Limit: 100}} {
		q.Stored = true
		page, _, err := d.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range page {
			want := rowByRow(t, d, got.ID)
			if text, ok := got.StoredOutputs(); ok {
				passed++
				outs, err := decodeOutputs(text)
				if err != nil || got.Outputs != nil || !reflect.DeepEqual(outs, want.Outputs) || wireOutputs(outs) != text {
					t.Fatalf("row %d: passed through %q (outputs %v), want %v", got.ID, text, got.Outputs, want.Outputs)
				}
				got.Outputs, got.outputsText = outs, ""
			} else {
				decoded++
			}
			// The AST and effects are the row's texts, not copied; the
			// effect kinds are not read.
			ast, okAST := got.StoredAST()
			effects, okEffects := got.StoredEffects()
			if !okAST || !okEffects || got.AST != nil || got.Effects != nil || got.EffectKinds != nil ||
				ast != string(want.AST) || effects != string(want.Effects) {
				t.Fatalf("row %d: AST %q, effects %q (%v %v %v), want %q, %q", got.ID, ast, effects, got.AST, got.Effects, got.EffectKinds, want.AST, want.Effects)
			}
			if ast != "" {
				got.AST = json.RawMessage(ast)
			}
			if effects != "" {
				got.Effects = json.RawMessage(effects)
			}
			got.EffectKinds, want.EffectKinds = nil, nil
			got.stored, got.astText, got.effectsText = false, "", ""
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("row %d:\n page %+v\n  row %+v", got.ID, got, want)
			}
		}
		ReleasePage(page)
	}
	if passed == 0 || decoded == 0 {
		t.Fatalf("%d rows passed through, %d decoded: want some of each", passed, decoded)
	}
	// Without Stored, nothing is passed through (Get, the
	// language's journal and the rest read Outputs, AST and Effects).
	page, _, err := d.Query(Query{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range page {
		_, okAST := e.StoredAST()
		if _, ok := e.StoredOutputs(); ok || okAST {
			t.Fatalf("row %d: passed through without Stored", e.ID)
		}
	}
}
