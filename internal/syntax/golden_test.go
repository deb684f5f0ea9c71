package syntax

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// TestGolden parses each testdata/golden/*.shl and compares the indented
// JSON AST with the .json file next to it. Run with -update to regenerate.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.shl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden sources")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			prog, err := Parse(string(src), ParseOptions{})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			raw, err := MarshalProgram(prog)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := json.Indent(&out, raw, "", "  "); err != nil {
				t.Fatalf("MarshalProgram produced invalid JSON: %v", err)
			}
			out.WriteByte('\n')
			golden := strings.TrimSuffix(f, ".shl") + ".json"
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("AST JSON differs from %s; run go test ./internal/syntax -run TestGolden -update and review the diff", golden)
			}
		})
	}
}

// TestMarshalShape checks the JSON vocabulary on a small program.
func TestMarshalShape(t *testing.T) {
	prog := mustParse(t, `let x = "a{b}"`+"\n"+`ls -l > f`, ParseOptions{})
	raw, err := MarshalProgram(prog)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Stmts []map[string]any `json:"stmts"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, raw)
	}
	if len(doc.Stmts) != 2 {
		t.Fatalf("got %d stmts", len(doc.Stmts))
	}
	let := doc.Stmts[0]
	if let["kind"] != "let" || let["name"] != "x" || let["mutable"] != false {
		t.Errorf("let = %v", let)
	}
	init := let["init"].(map[string]any)
	if init["kind"] != "str_interp" {
		t.Errorf("init kind = %v", init["kind"])
	}
	span := let["span"].(map[string]any)
	if span["start"] != 0.0 || span["end"] != 14.0 {
		t.Errorf("let span = %v", span)
	}
	call := doc.Stmts[1]["x"].(map[string]any)["call"].(map[string]any)
	if call["kind"] != "cmd_call" {
		t.Errorf("call kind = %v", call["kind"])
	}
	arg := call["args"].([]any)[0].(map[string]any)
	if arg["arg_kind"] != "short_flag" || arg["text"] != "l" {
		t.Errorf("arg = %v", arg)
	}
	red := call["redirects"].([]any)[0].(map[string]any)
	if red["redirect_kind"] != "out" {
		t.Errorf("redirect = %v", red)
	}
	if _, err := MarshalProgram(nil); err == nil {
		t.Error("MarshalProgram(nil) should fail")
	}
}

func TestMarshalEscapes(t *testing.T) {
	prog := mustParse(t, "\"q\\\"\\\\\\n\\t\\u{1}\\u{e9}\"", ParseOptions{})
	raw, err := MarshalProgram(prog)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, raw)
	}
	lit := doc["stmts"].([]any)[0].(map[string]any)["x"].(map[string]any)
	if got := lit["value"]; got != "q\"\\\n\t\x01\u00e9" {
		t.Errorf("value round-trip = %q", got)
	}
}
