package syntax

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzUnmarshalProgram checks that UnmarshalProgram never panics and that
// whatever it accepts re-marshals to JSON that decodes to the same program.
func FuzzUnmarshalProgram(f *testing.F) {
	// Golden JSON whole, and each of its statements as a small program of
	// its own (small seeds keep minimisation quick).
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		f.Add(b)
		if prog, err := UnmarshalProgram(b); err == nil {
			for _, s := range prog.Stmts {
				if one, err := MarshalProgram(&Program{Stmts: []Stmt{s}}); err == nil {
					f.Add(one)
				}
			}
		}
	}
	for _, s := range inlineSeeds {
		if prog, err := Parse(s, ParseOptions{}); err == nil {
			if b, err := MarshalProgram(prog); err == nil {
				f.Add(b)
			}
		}
	}
	for _, s := range []string{
		`{"stmts":[]}`, `{"stmts":[{"kind":"break","span":{"start":0,"end":5}}]}`,
		`{"stmts":[{"kind":"expr","x":{"kind":"float","value":"NaN","span":{"start":0,"end":1}},"span":{"start":0,"end":1}}]}`,
		`{"stmts":[{"kind":"use","path":"\ud83d\ude00\u0000","span":{"start":0,"end":1}}]}`,
		`{"stmts":[null]}`, `[`, `{"stmts":[{"kind":"expr"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		prog, err := UnmarshalProgram(data)
		if err != nil {
			if _, ok := err.(*DecodeError); !ok {
				t.Fatalf("error %T is not a *DecodeError: %v", err, err)
			}
			if prog != nil {
				t.Fatal("program returned with an error")
			}
			return
		}
		first, err := MarshalProgram(prog)
		if err != nil {
			t.Fatalf("accepted program does not marshal: %v", err)
		}
		if size, err := kindSize(prog); err != nil || size.height > MaxDepth || size.nodes > MaxNodes {
			t.Fatalf("accepted a tree of height %d and %d nodes (%v)", size.height, size.nodes, err)
		}
		back, err := UnmarshalProgram(first)
		if err != nil {
			t.Fatalf("re-marshalled program does not decode: %v\n%s", err, first)
		}
		second, err := MarshalProgram(back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Fatalf("decoding is not stable\nfirst:  %s\nsecond: %s", first, second)
		}
	})
}
