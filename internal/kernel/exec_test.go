package kernel

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/proto"
)

// parseResult is the result of a parse answer.
type parseResult struct {
	ASTVersion int             `json:"ast_version"`
	AST        json.RawMessage `json:"ast"`
}

func TestParse(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	var res parseResult
	c.ok("parse", map[string]any{"src": "let answer = 6 * 7"}, &res)
	if res.ASTVersion != 2 || !strings.Contains(string(res.AST), `"stmts"`) {
		t.Errorf("parse = %d %s", res.ASTVersion, res.AST)
	}
	r := c.fail("parse", map[string]any{"src": "(1 + "}, proto.CodeParseError)
	var d parseErrorData
	if err := json.Unmarshal(r.Error.Data, &d); err != nil {
		t.Fatal(err)
	}
	if !d.Incomplete || d.Span.Start != 5 {
		t.Errorf("data = %s", r.Error.Data)
	}
	r = c.fail("parse", map[string]any{"src": "1 | 2"}, proto.CodeParseError)
	json.Unmarshal(r.Error.Data, &d)
	if d.Incomplete || d.Hint == nil {
		t.Errorf("data = %s", r.Error.Data)
	}
	c.fail("parse", map[string]any{}, proto.CodeInvalidParams)
	c.fail("parse", map[string]any{"src": 3}, proto.CodeInvalidParams)
	c.fail("parse", []any{"1"}, proto.CodeInvalidParams)
}

// TestParseReusesParsersCorrectly sends sources of different sizes and
// shapes, several times over and from several connections at once, and
// checks each AST against a fresh syntax.Parse: the parse method's pooled
// parsers reuse tree memory, so a stale node would show here.
func TestParseReusesParsersCorrectly(t *testing.T) {
	k := startKernel(t)
	srcs := []string{
		"let answer = 6 * 7",
		strings.Repeat("let xs = [1, 2, 3].map(x => x * 2).where(.size > 1)\nls -la ./src > out.txt\n", 40),
		`match v { [a, ...r] => f(a, b: 2), {k: 1} => 3, _ => "s {x}" }`,
		"fn f(a: list<int>?, ...r) -> str { echo --x=1 (a) }",
	}
	want := make([]string, len(srcs))
	for i, src := range srcs {
		prog, err := syntax.Parse(src, syntax.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := syntax.MarshalProgram(prog)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = string(b)
	}
	errs := make(chan string, 64)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		c := k.dial(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 5; round++ {
				for i := range srcs {
					j := (i + w + round) % len(srcs)
					r := c.call("parse", map[string]any{"src": srcs[j]})
					var res parseResult
					if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
						errs <- fmt.Sprintf("source %d: error %v, result %s", j, r.Error, r.Result)
						return
					}
					if string(res.AST) != want[j] {
						errs <- fmt.Sprintf("source %d: AST differs from a fresh parse:\n got %s\nwant %s", j, res.AST, want[j])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestExecHappyPath(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	for i, tc := range []struct{ src, wire, render string }{
		{"1 + 2", `{"$":"int","v":3}`, "3"},
		{`"a" + "b"`, `{"$":"str","v":"ab"}`, "ab"},
		{"[1, 2]", `{"$":"list","v":[{"$":"int","v":1},{"$":"int","v":2}]}`, ""},
		{"{a: 1}", `{"$":"record","v":{"a":{"$":"int","v":1}}}`, ""},
	} {
		var res execResult
		c.ok("exec", map[string]any{"src": tc.src, "mode": "run", "position": "stmt"}, &res)
		if want := fmt.Sprintf("out:%d", i+1); res.Ref != want {
			t.Errorf("%s: ref %s, want %s", tc.src, res.Ref, want)
		}
		if string(res.Value) != tc.wire {
			t.Errorf("%s: value %s, want %s", tc.src, res.Value, tc.wire)
		}
		if tc.render != "" && res.Render != tc.render {
			t.Errorf("%s: render %q, want %q", tc.src, res.Render, tc.render)
		}
	}
	// The owner's session starts from the kernel's environment.
	var res execResult
	c.ok("exec", map[string]any{"src": "env.HOME"}, &res)
	if want := filepath.Dir(k.dir); res.Render != want {
		t.Errorf("$HOME = %q, want %q", res.Render, want)
	}
}

func TestExecErrors(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	r := c.fail("exec", map[string]any{"src": "1 / 0"}, proto.CodeRaised)
	var d raisedData
	if err := json.Unmarshal(r.Error.Data, &d); err != nil {
		t.Fatal(err)
	}
	if d.Ref != "out:1" || d.URI != "shoal://out/1" || d.Code != "div_zero" || d.Span == nil {
		t.Errorf("data = %s", r.Error.Data)
	}
	// The raised error is addressable.
	var got proto.ValueJSON
	c.ok("value.get", map[string]any{"ref": "out:1"}, &got)
	if !strings.Contains(string(got.Value), `"$":"error"`) || !strings.Contains(string(got.Value), "div_zero") {
		t.Errorf("stored error = %s", got.Value)
	}
	var code string
	c.ok("value.get", map[string]any{"ref": "out:1", "path": ".code", "format": "raw"}, &struct {
		Raw *string `json:"raw"`
	}{&code})
	if code != "div_zero" {
		t.Errorf("code = %q", code)
	}
	// A failed command carries its status and stderr.
	r = c.fail("exec", map[string]any{"src": "sh { echo oops >&2; exit 3 }"}, proto.CodeRaised)
	d = raisedData{}
	json.Unmarshal(r.Error.Data, &d)
	if d.Code != "cmd_failed" || string(d.Status) != `{"$":"int","v":3}` || !strings.Contains(string(d.Stderr), "oops") {
		t.Errorf("cmd_failed data = %s", r.Error.Data)
	}
	// A parse error stores nothing.
	c.fail("exec", map[string]any{"src": "(1 +"}, proto.CodeParseError)
	var res execResult
	c.ok("exec", map[string]any{"src": "7"}, &res)
	if res.Ref != "out:3" {
		t.Errorf("ref after parse error = %s, want out:3", res.Ref)
	}
	for _, p := range []map[string]any{
		{},
		{"src": 1},
		{"src": "1", "mode": "bogus"},
		{"src": "1", "position": "sideways"},
		{"src": "1", "async": true, "timeout_ms": 100},
		{"src": "1", "timeout_ms": -5},
		{"src": "1", "timeout_ms": 0},        // read without reflection (StringIntParams), refused by check
		{"src": "1", "timeout_ms": 86400001}, // likewise
		{"src": "1", "timeout_ms": 1.5},
		{"src": "1", "elide": map[string]any{"max_bytes": -1}},
	} {
		c.fail("exec", p, proto.CodeInvalidParams)
	}
	c.fail("exec", map[string]any{"src": "1", "mode": "approved"}, proto.CodeLeashDenied)
}

func TestExecTimeoutBecomesTask(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	// Work that finishes before the deadline answers inline.
	var res execResult
	c.ok("exec", map[string]any{"src": "6 * 7", "timeout_ms": 5000}, &res)
	if res.Render != "42" || res.Ref == "" {
		t.Errorf("fast exec with timeout = %+v", res)
	}
	// Work that does not keeps running as a task.
	start := time.Now()
	var st taskStarted
	c.ok("exec", map[string]any{"src": "var i = 0\nwhile true { i += 1 }", "timeout_ms": 100}, &st)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("timeout took %v", d)
	}
	if !st.TimedOut || st.Task == "" || st.Events != "task."+st.Task[len("task:"):] {
		t.Fatalf("timed-out exec = %+v", st)
	}
	var rec taskRecord
	c.ok("task.get", map[string]any{"task": st.Task}, &rec)
	if rec.State != taskRunning {
		t.Errorf("timed-out task state %q", rec.State)
	}
	c.ok("task.cancel", map[string]any{"task": st.Task}, nil)
	c.ok("task.await", map[string]any{"task": st.Task, "timeout_ms": 5000}, &rec)
	if rec.State != taskCancelled {
		t.Errorf("after cancel = %+v", rec)
	}
	// The session is still usable and kept the loop's progress.
	c.ok("exec", map[string]any{"src": "i > 0"}, &res)
	if res.Render != "true" {
		t.Errorf("i > 0 = %q", res.Render)
	}
}

func TestElision(t *testing.T) {
	k := startKernel(t)
	for i := 0; i < 150; i++ {
		if err := os.WriteFile(filepath.Join(k.dir, fmt.Sprintf("f%03d.txt", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := k.dial(t)
	c.attach("", "")

	type ref struct {
		Tag        string            `json:"$"`
		URI        string            `json:"uri"`
		Of         string            `json:"of"`
		N          int               `json:"n"`
		Cols       map[string]string `json:"cols"`
		Preview    json.RawMessage   `json:"preview"`
		RenderHead string            `json:"render_head"`
	}
	var res execResult
	c.ok("exec", map[string]any{"src": "(0..1000).map(x => x)"}, &res)
	var r ref
	json.Unmarshal(res.Value, &r)
	if r.Tag != "ref" || r.Of != "list" || r.N != 1000 || r.URI != "shoal://out/1" {
		t.Errorf("list elided as %s", res.Value)
	}
	if !strings.HasPrefix(string(r.Preview), `{"$":"list","v":[{"$":"int","v":0}`) || r.RenderHead == "" {
		t.Errorf("preview %s head %q", r.Preview, r.RenderHead)
	}
	// A budget raised by the caller keeps it inline.
	c.ok("exec", map[string]any{"src": "(0..600).map(x => x)", "elide": map[string]any{"max_items": 1000, "max_bytes": 1 << 20}}, &res)
	if !strings.HasPrefix(string(res.Value), `{"$":"list"`) {
		t.Errorf("with raised budget: %.80s", res.Value)
	}
	// max_bytes is clamped to the hard cap.
	c.ok("exec", map[string]any{"src": `(0..20000).map(x => "abcdef").join("")`, "elide": map[string]any{"max_bytes": 1 << 30}}, &res)
	if len(res.Value) > HardCap || !strings.Contains(string(res.Value), `"$":"ref"`) {
		t.Errorf("120000-char string not elided under the hard cap (%d bytes)", len(res.Value))
	}
	// Tables over max_rows keep their schema.
	c.ok("exec", map[string]any{"src": "let listing = ls\nlisting.out"}, &res)
	r = ref{}
	json.Unmarshal(res.Value, &r)
	if r.Tag != "ref" || r.Of != "table" || r.N != 150 || r.Cols["name"] != "str" {
		t.Fatalf("table elided as %.300s", res.Value)
	}
	if !strings.HasPrefix(string(r.Preview), `{"$":"table"`) || !strings.Contains(string(r.Preview), `"n":5`) {
		t.Errorf("table preview %s", r.Preview)
	}
	// Rows of the stored table are reachable by path and slice.
	var got proto.ValueJSON
	c.ok("value.get", map[string]any{"ref": res.Ref, "path": ".rows[3].name"}, &got)
	if string(got.Value) != `{"$":"str","v":"f003.txt"}` {
		t.Errorf(".rows[3].name = %s", got.Value)
	}
	c.ok("value.get", map[string]any{"ref": res.Ref, "path": ".name[149]"}, &got)
	if string(got.Value) != `{"$":"str","v":"f149.txt"}` {
		t.Errorf(".name[149] = %s", got.Value)
	}
	c.ok("value.get", map[string]any{"ref": res.Ref, "slice": []int{10, 12}}, &got)
	if !strings.HasPrefix(string(got.Value), `{"$":"table"`) || !strings.HasSuffix(string(got.Value), `"n":2}`) {
		t.Errorf("slice [10,12] = %s", got.Value)
	}
}

func TestValueGet(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	c.ok("exec", map[string]any{"src": `{name: "shoal", tags: ["a", "b", "c"], nested: {deep: 3}}`}, nil) // out:1
	c.ok("exec", map[string]any{"src": `"héllo wörld"`}, nil)                                             // out:2
	c.ok("exec", map[string]any{"src": `(0..10).map(x => x * x)`}, nil)                                   // out:3
	c.ok("exec", map[string]any{"src": `(0..300000).map(x => "abcdefgh").join("")`}, nil)                 // out:4 (2.4 MB)

	get := func(params map[string]any) string {
		t.Helper()
		var res proto.ValueJSON
		c.ok("value.get", params, &res)
		return string(res.Value)
	}
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"ref": "out:1", "path": ".name"}, `{"$":"str","v":"shoal"}`},
		{map[string]any{"ref": "out:1", "path": "nested.deep"}, `{"$":"int","v":3}`},
		{map[string]any{"ref": "out:1", "path": ".tags[1]"}, `{"$":"str","v":"b"}`},
		{map[string]any{"ref": "out:1", "path": ".tags[1..3]"}, `{"$":"list","v":[{"$":"str","v":"b"},{"$":"str","v":"c"}]}`},
		{map[string]any{"ref": "out:1", "path": ".tags", "slice": []int{2, 99}}, `{"$":"list","v":[{"$":"str","v":"c"}]}`},
		{map[string]any{"ref": "out:2", "slice": []int{1, 4}}, `{"$":"str","v":"éll"}`},
		{map[string]any{"ref": "out:3", "slice": []int{8, 10}, "format": "json"}, `{"$":"list","v":[{"$":"int","v":64},{"$":"int","v":81}]}`},
	} {
		if got := get(tc.params); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.params, got, tc.want)
		}
	}

	var rendered proto.ValueRender
	c.ok("value.get", map[string]any{"ref": "out:2", "format": "render"}, &rendered)
	if rendered.Render != "héllo wörld" || rendered.Ref != "out:2" {
		t.Errorf("render = %+v", rendered)
	}

	var raw proto.ValueRaw
	c.ok("value.get", map[string]any{"ref": "out:2", "format": "raw", "slice": []int{6, 11}}, &raw)
	if raw.Raw == nil || *raw.Raw != "wörld" || raw.Total != 11 || raw.Truncated {
		t.Errorf("raw = %+v", raw)
	}
	raw = proto.ValueRaw{}
	c.ok("value.get", map[string]any{"ref": "out:4", "format": "raw"}, &raw)
	if raw.Raw == nil || len(*raw.Raw) != MaxRawBytes || raw.Total != 2400000 || !raw.Truncated {
		t.Errorf("big raw: len %d total %d truncated %v", len(deref(raw.Raw)), raw.Total, raw.Truncated)
	}
	raw = proto.ValueRaw{}
	c.ok("value.get", map[string]any{"ref": "out:4", "format": "raw", "slice": []int{2399990, 2500000}}, &raw)
	if deref(raw.Raw) != "ghabcdefgh" || raw.Truncated {
		t.Errorf("tail raw = %q %+v", deref(raw.Raw), raw)
	}

	// Errors.
	for _, ref := range []string{"out:99", "out:0", "out:x", "plan:1", "", "out:01"} {
		c.fail("value.get", map[string]any{"ref": ref}, proto.CodeUnknownRef)
	}
	c.fail("value.get", map[string]any{}, proto.CodeInvalidParams)
	for _, p := range []map[string]any{
		{"ref": "out:1", "path": ".missing"},
		{"ref": "out:1", "path": ".tags[9]"},
		{"ref": "out:1", "path": ".tags[-1]"},
		{"ref": "out:1", "path": "[0"},
		{"ref": "out:1", "path": ".name.more"},
		{"ref": "out:1", "slice": []int{0, 1}},
		{"ref": "out:1", "slice": []int{0}},
		{"ref": "out:1", "format": "raw"},
		{"ref": "out:1", "format": "xml"},
		{"ref": "out:3", "format": "raw"},
	} {
		c.fail("value.get", p, proto.CodeBadPathOrSlice)
	}
}

func TestValueGetRawBytes(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	c.ok("exec", map[string]any{"src": "sh { printf 'hi there' }.stdout"}, nil)
	var raw proto.ValueRaw
	c.ok("value.get", map[string]any{"ref": "out:1", "format": "raw", "slice": []int{3, 8}}, &raw)
	if raw.RawBase64 == nil {
		t.Skipf("stdout is not bytes in this build: %+v", raw)
	}
	b, err := base64.StdEncoding.DecodeString(*raw.RawBase64)
	if err != nil || string(b) != "there" || raw.Total != 8 {
		t.Errorf("raw bytes = %q total %d", b, raw.Total)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
