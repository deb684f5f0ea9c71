package syntax

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/internal/corpusdir"
)

var inlineSeeds = []string{
	"", "1 + 2 * 3", "let x = ls\nx.len()", "echo a && echo b", "sh { printf hi }.out",
	"match v { 0 | 1 => 1, [a, ...r] => 2, {k: v} => 3, _ => 4 }",
	"\"a{b}\\n\"", "'''\n  x\n  '''", "\"\"\"\n  {x}\n  \"\"\"", "fn f(a: list<int>?, ...r) -> str { a }",
	"x catch e { e }", "try { 1 } catch { 2 }", "(a, b) => a + b", "xs.map(.a > 1)",
	"A=1 ^cmd --x=1 -ab -- - ./p *.g > o >> a < i &", "cat << EOF", "ls 2> f", "$HOME", "`x`",
	"10:30pm", "1.5mb", "0xff", "t\"x\"", "re\"x\"", "with cwd: x { }", "spawn { }",
	"(it)", "{\n a: 1,\n}", "a\n  .b\n  ?.c", "if a { } else if b { } else { }",
}

// seedCorpus adds conformance sources, golden sources and inline seeds.
func seedCorpus(f *testing.F) {
	for _, s := range inlineSeeds {
		f.Add(s)
	}
	if cases, err := loadCorpus(seedCorpusDir()); err == nil {
		for _, c := range cases {
			f.Add(c.Src)
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.shl"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(string(b))
		}
	}
}

// FuzzLex lexes every input start to end in each mode, checking that each
// token lies in range and advances, and that lexExprAt agrees with lex.
func FuzzLex(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, src string) {
		for _, m := range []mode{exprMode, cmdMode, cmdArgMode} {
			pos := 0
			for steps := 0; steps <= len(src)+1; steps++ {
				tk := lex(src, pos, m)
				if m == exprMode {
					// The parser's cache lexes through lexExprAt.
					if alt := lexExprAt(src, pos); alt.tokSpan != tk.tokSpan || (alt.diag == nil) != (tk.diag == nil) || alt.diag != nil && *alt.diag != *tk.diag {
						t.Fatalf("pos %d: lexExprAt gives %+v, lex gives %+v", pos, alt, tk)
					}
				}
				if tk.start < pos || tk.end < tk.start || tk.end > len(src) {
					t.Fatalf("mode %d pos %d: token %+v out of range (len %d)", m, pos, tk, len(src))
				}
				if tk.kind == tEOF {
					break
				}
				if tk.end == tk.start {
					t.Fatalf("mode %d pos %d: empty %v token does not advance", m, pos, tk.kind)
				}
				if tk.kind == tIllegal {
					if tk.diag == nil || tk.diag.msg == "" {
						t.Fatalf("illegal token without a message at %d", pos)
					}
					pos = tk.end
					continue
				}
				pos = tk.end
			}
		}
	})
}

// fuzzKeeping is a keeping Parser shared by FuzzParse's inputs, so each
// input is parsed into memory the previous input's tree used.
var fuzzKeeping Parser

func FuzzParse(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, src string) {
		for _, repl := range []bool{false, true} {
			prog, perr, size := parseNoRecover(src, ParseOptions{REPL: repl})
			if err := sameAsKeeping(src, ParseOptions{REPL: repl}, prog, perr); err != nil {
				t.Fatalf("%v\nsource: %q", err, src)
			}
			if perr != nil {
				if perr.Msg == "" || perr.Span.Start < 0 || int(perr.Span.End) > len(src) || perr.Span.Start > perr.Span.End {
					t.Fatalf("bad error %+v for %q", perr, src)
				}
				if perr.Hint == "" || perr.Hint == fallbackHint {
					t.Fatalf("error %q has no hint of its own (hint %q) for %q", perr.Msg, perr.Hint, src)
				}
				continue
			}
			if err := checkSpans(prog, len(src)); err != nil {
				t.Fatalf("%v\nsource: %q", err, src)
			}
			if err := checkSize(prog, size); err != nil {
				t.Fatalf("%v\nsource: %q", err, src)
			}
		}
	})
}

// sameAsKeeping parses src again with the shared keeping Parser and
// reports how its answer differs from the fresh parse's (prog or perr).
func sameAsKeeping(src string, opts ParseOptions, prog *Program, perr *Error) error {
	kept, err := fuzzKeeping.Parse(src, opts)
	if perr != nil || err != nil {
		kerr, _ := err.(*Error)
		if perr == nil || kerr == nil || *kerr != *perr {
			return fmt.Errorf("keeping Parser error %v, fresh parse error %v", err, perr)
		}
		return nil
	}
	want, err := MarshalProgram(prog)
	if err != nil {
		return err
	}
	got, err := MarshalProgram(kept)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("keeping Parser tree differs from a fresh parse:\n got %s\nwant %s", got, want)
	}
	return nil
}

// parseNoRecover parses, converting only parse errors: any other panic
// escapes so the fuzzer reports it. It also returns the height and node
// count the parser tracked.
func parseNoRecover(src string, opts ParseOptions) (prog *Program, perr *Error, size treeSize) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			teachHabit(src, b.err) // as parseSafely does
			perr = b.err
		}
	}()
	p := parserPool.Get().(*parser)
	defer p.release()
	prog = p.parseProgram(src, opts)
	return prog, nil, treeSize{height: p.h, nodes: p.nodes}
}

// checkSpans verifies every node span lies within the source and within its
// nearest enclosing node's span.
func checkSpans(prog *Program, n int) error {
	raw, err := MarshalProgram(prog)
	if err != nil {
		return err
	}
	// The kernel sends this JSON as one line without scanning it for a
	// newline (proto.Outbox.SendEncoded): the encoder must never write one.
	if i := bytes.IndexByte(raw, '\n'); i >= 0 {
		return fmt.Errorf("the JSON has a raw newline at byte %d", i)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	return walkSpans(doc, mkSpan(0, n), "")
}

func walkSpans(v any, parent Span, path string) error {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x["span"].(map[string]any); ok {
			sp := Span{int32(s["start"].(float64)), int32(s["end"].(float64))}
			if sp.Start < parent.Start || sp.End > parent.End || sp.Start > sp.End {
				return fmt.Errorf("%s (%v): span %v outside parent %v", path, x["kind"], sp, parent)
			}
			parent = sp
		}
		for k, c := range x {
			if k == "span" {
				continue
			}
			if err := walkSpans(c, parent, path+"."+k); err != nil {
				return err
			}
		}
	case []any:
		for i, c := range x {
			if err := walkSpans(c, parent, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestCorpusSpans runs the span invariant over every corpus source.
func TestCorpusSpans(t *testing.T) {
	cases, err := loadCorpus(corpusdir.ForTest(t))
	if err != nil || len(cases) == 0 {
		t.Fatalf("conformance corpus: %d cases, %v", len(cases), err)
	}
	for _, c := range cases {
		prog, err := Parse(c.Src, ParseOptions{})
		if err != nil {
			continue
		}
		if err := checkSpans(prog, len(c.Src)); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}
