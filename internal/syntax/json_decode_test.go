package syntax

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/corpusdir"
)

// roundTrip checks marshal → unmarshal → marshal is byte-identical and
// returns the first marshalled form.
func roundTrip(t *testing.T, name string, prog *Program) []byte {
	t.Helper()
	first, err := MarshalProgram(prog)
	if err != nil {
		t.Fatalf("%s: marshal: %v", name, err)
	}
	back, err := UnmarshalProgram(first)
	if err != nil {
		t.Fatalf("%s: unmarshal: %v\n%s", name, err, first)
	}
	second, err := MarshalProgram(back)
	if err != nil {
		t.Fatalf("%s: re-marshal: %v", name, err)
	}
	if !bytes.Equal(first, second) {
		t.Fatalf("%s: round trip differs\nfirst:  %s\nsecond: %s", name, first, second)
	}
	return first
}

func TestUnmarshalGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			golden, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			// The indented golden JSON decodes and re-encodes to itself.
			prog, err := UnmarshalProgram(golden)
			if err != nil {
				t.Fatalf("unmarshal golden: %v", err)
			}
			raw, err := MarshalProgram(prog)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := json.Indent(&out, raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			out.WriteByte('\n')
			if !bytes.Equal(out.Bytes(), golden) {
				t.Errorf("golden %s does not survive unmarshal → marshal", f)
			}
			// And the source goes parse → marshal → unmarshal → marshal.
			src, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".shl")
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := Parse(string(src), ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if first := roundTrip(t, f, parsed); !bytes.Equal(first, raw) {
				t.Errorf("parsed source and golden JSON disagree")
			}
		})
	}
}

func TestUnmarshalCorpus(t *testing.T) {
	cases, err := loadCorpus(corpusdir.ForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		for _, opts := range []ParseOptions{{}, {REPL: true}} {
			prog, err := Parse(c.Src, opts)
			if err != nil {
				continue
			}
			roundTrip(t, c.File+"/"+c.Name, prog)
			n++
		}
	}
	for _, s := range inlineSeeds {
		if prog, err := Parse(s, ParseOptions{}); err == nil {
			roundTrip(t, s, prog)
			n++
		}
	}
	t.Logf("round-tripped %d programs", n)
	if n == 0 {
		t.Fatal("no program round-tripped")
	}
}

// TestUnmarshalFieldOrder re-encodes golden JSON with keys sorted (so "kind"
// is no longer first) and checks it decodes to the same program.
func TestUnmarshalFieldOrder(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	for _, f := range files {
		golden, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(golden))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		sorted, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, golden); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(sorted, compact.Bytes()) {
			t.Fatalf("%s: keys were not reordered", f)
		}
		a, err := UnmarshalProgram(sorted)
		if err != nil {
			t.Fatalf("%s sorted: %v", f, err)
		}
		b, err := UnmarshalProgram(golden)
		if err != nil {
			t.Fatal(err)
		}
		ra, _ := MarshalProgram(a)
		rb, _ := MarshalProgram(b)
		if !bytes.Equal(ra, rb) {
			t.Errorf("%s: sorted keys decode differently", f)
		}
	}
}

func TestUnmarshalValues(t *testing.T) {
	tests := []struct {
		in   string
		want string // re-marshalled form of the first statement's x
	}{
		{`{"kind":"float","value":1.0,"span":{"start":0,"end":1}}`, `{"kind":"float","value":1,"span":{"start":0,"end":1}}`},
		{`{"kind":"float","value":"NaN","span":{"start":0,"end":1}}`, `{"kind":"float","value":"NaN","span":{"start":0,"end":1}}`},
		{`{"kind":"float","value":"-Inf","span":{"start":0,"end":1}}`, `{"kind":"float","value":"-Inf","span":{"start":0,"end":1}}`},
		{`{"kind":"int","value":-9223372036854775808,"span":{"start":0,"end":1}}`, `{"kind":"int","value":-9223372036854775808,"span":{"start":0,"end":1}}`},
		{`{"kind":"str","value":"a\u00e9\ud83d\ude00\/\"\n\u0001","raw":false,"span":{"start":0,"end":1}}`,
			`{"kind":"str","value":"aé😀/\"\n\u0001","raw":false,"span":{"start":0,"end":1}}`},
		{`{"span":{"end":2,"start":1},"name":"x","kind":"var"}`, `{"kind":"var","name":"x","span":{"start":1,"end":2}}`},
	}
	for _, tt := range tests {
		doc := `{"stmts":[{"kind":"expr","x":` + tt.in + `,"span":{"start":0,"end":1}}]}`
		prog, err := UnmarshalProgram([]byte(doc))
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		out, err := MarshalProgram(prog)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"stmts":[{"kind":"expr","x":` + tt.want + `,"span":{"start":0,"end":1}}]}`
		if string(out) != want {
			t.Errorf("%s:\n got %s\nwant %s", tt.in, out, want)
		}
	}
}

func TestUnmarshalRejects(t *testing.T) {
	const sp = `"span":{"start":0,"end":1}`
	stmt := func(x string) string { return `{"stmts":[{"kind":"expr","x":` + x + `,` + sp + `}]}` }
	word := `{"kind":"cmd_arg","arg_kind":"word","text":"ls","name":"","value":null,"x":null,` + sp + `}`
	cmd := func(head string) string {
		return stmt(`{"kind":"cmd","call":{"kind":"cmd_call","env":[],"forced":false,"head":` + head +
			`,"args":[],"redirects":[],"background":false,"trailing":null,` + sp + `},` + sp + `}`)
	}
	tests := []struct {
		name, in, path, reason string
	}{
		{"empty", ``, "", "unexpected end"},
		{"not object", `[]`, "", "expected an object, got an array"},
		{"trailing", `{"stmts":[]} x`, "", "after the top-level value"},
		{"missing stmts", `{}`, "", `missing field "stmts"`},
		{"extra top", `{"stmts":[],"ast_version":2}`, "", `unknown field "ast_version"`},
		{"dup top", `{"stmts":[],"stmts":[]}`, "", "duplicate field"},
		{"null stmt", `{"stmts":[null]}`, "stmts[0]", "must not be null"},
		{"stmt not object", `{"stmts":[1]}`, "stmts[0]", "expected an object, got a number"},
		{"unknown stmt", `{"stmts":[{"kind":"goto",` + sp + `}]}`, "stmts[0].kind", `unknown statement kind "goto"`},
		{"expr kind as stmt", `{"stmts":[{"kind":"int","value":1,` + sp + `}]}`, "stmts[0].kind", "unknown statement kind"},
		{"missing kind", `{"stmts":[{` + sp + `}]}`, "stmts[0]", `missing field "kind"`},
		{"kind not string", `{"stmts":[{"kind":1}]}`, "stmts[0].kind", "expected a string"},
		{"unknown expr", stmt(`{"kind":"lambada",` + sp + `}`), "stmts[0].x.kind", `unknown expression kind "lambada"`},
		{"missing field", stmt(`{"kind":"var",` + sp + `}`), "stmts[0].x", `missing field "name"`},
		{"missing span", stmt(`{"kind":"var","name":"x"}`), "stmts[0].x", `missing field "span"`},
		{"unknown field", stmt(`{"kind":"var","name":"x","type":null,` + sp + `}`), "stmts[0].x", `unknown field "type"`},
		{"dup field", stmt(`{"kind":"var","name":"x","name":"y",` + sp + `}`), "stmts[0].x", `duplicate field "name"`},
		{"wrong type", stmt(`{"kind":"var","name":1,` + sp + `}`), "stmts[0].x.name", "expected a string, got a number"},
		{"bool as string", stmt(`{"kind":"bool","value":"true",` + sp + `}`), "stmts[0].x.value", "expected a boolean"},
		{"null required", `{"stmts":[{"kind":"expr","x":null,` + sp + `}]}`, "stmts[0].x", "must not be null"},
		{"start after end", stmt(`{"kind":"null","span":{"start":3,"end":2}}`), "stmts[0].x.span", "start 3 after end 2"},
		{"negative span", stmt(`{"kind":"null","span":{"start":-1,"end":2}}`), "stmts[0].x.span.start", "out of range"},
		{"fractional span", stmt(`{"kind":"null","span":{"start":0.5,"end":2}}`), "stmts[0].x.span.start", "expected an integer"},
		{"span missing end", stmt(`{"kind":"null","span":{"start":0}}`), "stmts[0].x.span", `missing field "end"`},
		{"span extra", stmt(`{"kind":"null","span":{"start":0,"end":0,"line":1}}`), "stmts[0].x.span", `unknown field "line"`},
		{"int overflow", stmt(`{"kind":"int","value":9223372036854775808,` + sp + `}`), "stmts[0].x.value", "int64 range"},
		{"int exponent", stmt(`{"kind":"int","value":1e3,` + sp + `}`), "stmts[0].x.value", "expected an integer"},
		{"float overflow", stmt(`{"kind":"float","value":1e400,` + sp + `}`), "stmts[0].x.value", "out of float64 range"},
		{"float word", stmt(`{"kind":"float","value":"inf",` + sp + `}`), "stmts[0].x.value", `"+Inf"`},
		{"bad op", stmt(`{"kind":"binary","op":"**","l":{"kind":"null",` + sp + `},"r":{"kind":"null",` + sp + `},` + sp + `}`), "stmts[0].x.op", `unknown value "**"`},
		{"bad unary", stmt(`{"kind":"unary","op":"~","x":{"kind":"null",` + sp + `},` + sp + `}`), "stmts[0].x.op", "unknown value"},
		{"assign to call", `{"stmts":[{"kind":"assign","target":{"kind":"null",` + sp + `},"op":"=","value":{"kind":"null",` + sp + `},` + sp + `}]}`, "stmts[0].target.kind", "assignment target"},
		{"block kind", stmt(`{"kind":"spawn","body":{"kind":"list","elems":[],` + sp + `},` + sp + `}`), "stmts[0].x.body.kind", `expected kind "block", got "list"`},
		{"else kind", stmt(`{"kind":"if","cond":{"kind":"null",` + sp + `},"then":{"kind":"block","stmts":[],` + sp + `},"else":{"kind":"null",` + sp + `},` + sp + `}`), "stmts[0].x.else.kind", "else must be a block or an if"},
		{"list null elem", stmt(`{"kind":"list","elems":[null],` + sp + `}`), "stmts[0].x.elems[0]", "must not be null"},
		{"list elems object", stmt(`{"kind":"list","elems":{},` + sp + `}`), "stmts[0].x.elems", "expected an array, got an object"},
		{"str part kind", stmt(`{"kind":"str_interp","parts":[{"kind":"part","lit":"a","x":null}],` + sp + `}`), "stmts[0].x.parts[0].kind", `expected kind "str_part"`},
		{"str part span", stmt(`{"kind":"str_interp","parts":[{"kind":"str_part","lit":"a","x":null,` + sp + `}],` + sp + `}`), "stmts[0].x.parts[0]", `unknown field "span"`},
		{"arm without patterns", stmt(`{"kind":"match","subject":{"kind":"null",` + sp + `},"arms":[{"kind":"match_arm","patterns":[],"guard":null,"body":{"kind":"null",` + sp + `},` + sp + `}],` + sp + `}`), "stmts[0].x.arms[0].patterns", "at least one pattern"},
		{"unknown pattern", stmt(`{"kind":"match","subject":{"kind":"null",` + sp + `},"arms":[{"kind":"match_arm","patterns":[{"kind":"regex_pat",` + sp + `}],"guard":null,"body":{"kind":"null",` + sp + `},` + sp + `}],` + sp + `}`), "stmts[0].x.arms[0].patterns[0].kind", `unknown pattern kind "regex_pat"`},
		{"arg kind", cmd(strings.Replace(word, `"word"`, `"flag"`, 1)), "stmts[0].x.call.head.arg_kind", `unknown value "flag"`},
		{"word with x", cmd(strings.Replace(word, `"x":null`, `"x":{"kind":"null",`+sp+`}`, 1)), "stmts[0].x.call.head.x", "only str and expr"},
		{"word with value", cmd(strings.Replace(word, `"value":null`, `"value":`+word, 1)), "stmts[0].x.call.head.value", "only a long_flag"},
		{"str arg without x", cmd(strings.Replace(word, `"word"`, `"str"`, 1)), "stmts[0].x.call.head.x", "must not be null"},
		{"str arg holding int", cmd(strings.Replace(strings.Replace(word, `"word"`, `"str"`, 1), `"x":null`, `"x":{"kind":"int","value":1,`+sp+`}`, 1)), "stmts[0].x.call.head.x.kind", "str or str_interp"},
		{"null head", cmd(`null`), "stmts[0].x.call.head", "must not be null"},
		{"flag head", cmd(strings.Replace(word, `"word"`, `"short_flag"`, 1)), "stmts[0].x.call.head.arg_kind", "a word or a path"},
		{"patterns not array", stmt(`{"kind":"match","subject":{"kind":"null",` + sp + `},"arms":[{"kind":"match_arm","patterns":"_","guard":null,"body":{"kind":"null",` + sp + `},` + sp + `}],` + sp + `}`), "stmts[0].x.arms[0].patterns", "expected an array, got a string"},
		{"bad escape", `{"stmts":[{"kind":"use","path":"\q",` + sp + `}]}`, "stmts[0].path", "invalid escape"},
		{"lone surrogate", `{"stmts":[{"kind":"use","path":"\ud800",` + sp + `}]}`, "stmts[0].path", "lone surrogate"},
		{"low surrogate first", `{"stmts":[{"kind":"use","path":"\udc00\ud800",` + sp + `}]}`, "stmts[0].path", "lone surrogate"},
		{"invalid utf8", "{\"stmts\":[{\"kind\":\"use\",\"path\":\"\xff\"," + sp + "}]}", "stmts[0].path", "invalid UTF-8"},
		{"control char", "{\"stmts\":[{\"kind\":\"use\",\"path\":\"\n\"," + sp + "}]}", "stmts[0].path", "control character"},
		{"unterminated", `{"stmts":[{"kind":"use","path":"abc`, "stmts[0].path", "unterminated string"},
		{"bad number", stmt(`{"kind":"int","value":01,` + sp + `}`), "stmts[0].x", "want ','"},
		{"bare minus", stmt(`{"kind":"int","value":-,` + sp + `}`), "stmts[0].x.value", "invalid number"},
		{"trailing comma", `{"stmts":[],}`, "", "object key must be a string"},
		{"literal typo", `{"stmts":[nul]}`, "stmts[0]", "invalid character"},
		{"deep json", strings.Repeat("[", maxDecodeDepth+5), "", "nesting deeper than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, err := UnmarshalProgram([]byte(tt.in))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, %v; want a *DecodeError", prog, err)
			}
			if prog != nil {
				t.Errorf("program %v returned with an error", prog)
			}
			if tt.name != "deep json" && de.Path != tt.path {
				t.Errorf("path = %q, want %q (%v)", de.Path, tt.path, err)
			}
			if !strings.Contains(de.Reason, tt.reason) {
				t.Errorf("reason = %q, want it to contain %q", de.Reason, tt.reason)
			}
			if !strings.Contains(err.Error(), de.Reason) {
				t.Errorf("Error() = %q lacks the reason", err.Error())
			}
		})
	}
}

func TestUnmarshalLimits(t *testing.T) {
	// A long left-associative chain nests one JSON object per operator and
	// stays under the depth limit.
	src := "1" + strings.Repeat(" + 1", MaxDepth-2)
	prog, err := Parse(src, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, "long chain", prog)

	// Nested unary minus beyond the depth limit is refused, not recursed.
	const sp = `"span":{"start":0,"end":0}`
	deep := strings.Repeat(`{"kind":"unary","op":"-","x":`, maxDecodeDepth) + `{"kind":"null",` + sp + `}` +
		strings.Repeat(`,`+sp+`}`, maxDecodeDepth)
	_, err = UnmarshalProgram([]byte(`{"stmts":[{"kind":"expr","x":` + deep + `,` + sp + `}]}`))
	var de *DecodeError
	if !errors.As(err, &de) || !strings.Contains(de.Reason, "nesting deeper than") {
		t.Errorf("deep unary: %v", err)
	}

	// A tree nested one node deeper than MaxDepth is refused although its
	// JSON nesting is within maxDecodeDepth; one at MaxDepth is accepted.
	unary := func(levels int) []byte {
		x := strings.Repeat(`{"kind":"unary","op":"-","x":`, levels) + `{"kind":"null",` + sp + `}` +
			strings.Repeat(`,`+sp+`}`, levels)
		return []byte(`{"stmts":[{"kind":"expr","x":` + x + `,` + sp + `}]}`)
	}
	if _, err := UnmarshalProgram(unary(MaxDepth - 2)); err != nil {
		t.Errorf("a tree of MaxDepth nodes: %v", err)
	}
	_, err = UnmarshalProgram(unary(MaxDepth - 1))
	if !errors.As(err, &de) || !strings.Contains(de.Reason, "AST nested deeper than") {
		t.Errorf("a tree of MaxDepth+1 nodes: %v", err)
	}

	// The deepest trees the parser returns decode, with the widest JSON
	// nesting (a list in a list is two JSON levels a node) as deep as the
	// parser's own nesting allows, the rest of the depth made up by a chain.
	for _, open := range []string{"[", "{a: ", "x.f(", "echo ("} {
		close := map[string]string{"[": "]", "{a: ": "}", "x.f(": ")", "echo (": ")"}[open]
		nest := func(chain int) string {
			return "let x = " + strings.Repeat(open, 150) + "1" + strings.Repeat("+1", chain) + strings.Repeat(close, 150)
		}
		base, perr, _ := parseNoRecover(nest(0), ParseOptions{})
		if perr != nil {
			t.Fatal(perr)
		}
		h, err := kindSize(base)
		if err != nil {
			t.Fatal(err)
		}
		prog, perr, size := parseNoRecover(nest(MaxDepth-h.height), ParseOptions{})
		if perr != nil || size.height != MaxDepth {
			t.Fatalf("%s: height %d, error %v", open, size.height, perr)
		}
		roundTrip(t, "deep "+open, prog)
	}

	// More values than the limit are refused before building anything.
	many := `{"stmts":[` + strings.Repeat(`0,`, maxDecodeValues) + `0]}`
	_, err = UnmarshalProgram([]byte(many))
	if !errors.As(err, &de) || !strings.Contains(de.Reason, "JSON values") {
		t.Errorf("many values: %v", err)
	}
}

// BenchmarkUnmarshalProgram decodes the compact JSON of every golden
// source; the encoding/json sub-benchmark (into any) is a baseline.
func BenchmarkUnmarshalProgram(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.shl"))
	var docs [][]byte
	size := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		prog, err := Parse(string(src), ParseOptions{})
		if err != nil {
			b.Fatal(err)
		}
		raw, err := MarshalProgram(prog)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, raw)
		size += len(raw)
	}
	b.Run("syntax", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, d := range docs {
				if _, err := UnmarshalProgram(d); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("encoding_json_any", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, d := range docs {
				var v any
				if err := json.Unmarshal(d, &v); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
