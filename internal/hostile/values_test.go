//go:build linux

package hostile

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// Bounds of the value and document attacks, stated once.
const (
	valuesMemCap = 2 << 30   // RLIMIT_AS of the kernel
	valuesRSS    = 512 << 20 // peak RSS the kernel may reach
	// renderBound is kernel.MaxRender: a render's size once encoded.
	renderBound = 64 << 10
	// answerBound is what any answer here may take: the default elision
	// budget for the value (8 KiB), the render, and room for the envelope.
	answerBound = 8<<10 + renderBound + 4<<10
)

// deepX builds x, a list nested a million levels deep (2000 times
// value.MaxDepth), in the language.
const deepX = "var x = []; for i in 0..1000000 { x = [x] }; "

func valuesCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(Ctx(t), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// execRaw runs src and returns the raw exec result, so its encoded size
// can be checked.
func execRaw(t *testing.T, c *client.Client, src string) (json.RawMessage, error) {
	t.Helper()
	var raw json.RawMessage
	err := c.Call(valuesCtx(t), "exec", client.ExecParams{Src: src}, &raw)
	return raw, err
}

// wantBoundedAnswer checks a successful exec answer: no bigger than
// answerBound, its render within renderBound once encoded, and holding
// want (when not "") in the render.
func wantBoundedAnswer(t *testing.T, what string, raw json.RawMessage, err error, want string) *client.ExecResult {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(raw) > answerBound {
		t.Fatalf("%s: answer of %d bytes, bound %d", what, len(raw), answerBound)
	}
	var res client.ExecResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if enc, _ := json.Marshal(res.Render); len(enc) > renderBound+2 {
		t.Fatalf("%s: render of %d encoded bytes", what, len(enc))
	}
	if want != "" && !strings.Contains(res.Render, want) {
		t.Fatalf("%s: render %.200q lacks %q", what, res.Render, want)
	}
	return &res
}

// TestHostileDeepValues: a token principal builds a list a million deep
// and renders it, compares it, wraps it in a record, fetches it with
// value.get and encodes it every way the language can. Renders elide
// what lies past value.MaxDepth, == answers, encoders fail with too_deep;
// the kernel stays up and the owner is served throughout.
func TestHostileDeepValues(t *testing.T) {
	k := Start(t, Options{MemCap: valuesMemCap})
	hb := k.Heartbeat(t)
	c := k.Attach(t, "deep", k.Token(t, "agent:evil"))

	raw, err := execRaw(t, c, deepX+"x")
	res := wantBoundedAnswer(t, "render", raw, err, "[[[[")
	if !strings.Contains(res.Render, "…") {
		t.Fatalf("render of a million-deep list shows no elision: %.200q", res.Render)
	}

	// x stays bound in the session; later execs reuse it.
	raw, err = execRaw(t, c, "var y = []; for i in 0..1000000 { y = [y] }; [x == y, x == [y], [x] == [y]]")
	res = wantBoundedAnswer(t, "==", raw, err, "")
	if got := strings.ReplaceAll(string(res.Value), " ", ""); !strings.Contains(got, `{"$":"bool","v":true},{"$":"bool","v":false},{"$":"bool","v":true}`) {
		t.Fatalf("== of million-deep lists: %s", got)
	}

	raw, err = execRaw(t, c, "{a: x, b: [x, x]}")
	res = wantBoundedAnswer(t, "record", raw, err, "a")

	for _, p := range []client.ValueGetParams{
		{Ref: res.Ref},
		{Ref: res.Ref, Path: ".a[0][0][0]"},
		{Ref: res.Ref, Path: ".b", Format: "render"},
	} {
		var got json.RawMessage
		if err := c.Call(valuesCtx(t), "value.get", p, &got); err != nil {
			t.Fatalf("value.get %+v: %v", p, err)
		}
		if len(got) > answerBound {
			t.Fatalf("value.get %+v: %d bytes", p, len(got))
		}
	}

	encoders := []string{"json.stringify(x)", "x.json()", "json.stringify({a: x}, pretty: true)", "yaml.stringify(x)", "toml.stringify({a: x})"}
	for _, src := range encoders {
		_, err := c.Exec(valuesCtx(t), client.ExecParams{Src: src})
		WantLangCode(t, err, "too_deep")
	}
	// Caught in the language, each is an ordinary error value.
	src := "["
	for _, e := range encoders {
		src += "try { " + e + " } catch e { e.code }, "
	}
	raw, err = execRaw(t, c, src+"]")
	res = wantBoundedAnswer(t, "caught", raw, err, "")
	if n := strings.Count(string(res.Value), "too_deep"); n != len(encoders) {
		t.Fatalf("caught encoder errors: %s", res.Value)
	}
	// The same value stays usable in parts.
	if _, err := c.Exec(valuesCtx(t), client.ExecParams{Src: "var z = x; for i in 0..999990 { z = z[0] }; json.stringify(z)"}); err != nil {
		t.Fatalf("stringify of a shallow part: %v", err)
	}

	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, valuesRSS)
}

// docSrc builds, in the language, a document of 2^21 (2 M) copies of unit
// after prefix, and passes it to parse.
func docSrc(parse, prefix, unit string) string {
	return `var s = "` + unit + `"; for i in 0..21 { s = s + s }; ` + parse + `("` + prefix + `" + s)`
}

// TestHostileDeepDocuments: a token principal parses JSON, TOML and YAML
// nested two million deep (open brackets, balanced brackets, inline
// tables, flow mappings, dotted keys), 4096 TOML keys of 256 parts (which
// would cost the decoder seconds), and a YAML alias bomb, and gets
// too_deep or too_large for each.
func TestHostileDeepDocuments(t *testing.T) {
	k := Start(t, Options{MemCap: valuesMemCap})
	hb := k.Heartbeat(t)
	c := k.Attach(t, "docs", k.Token(t, "agent:evil"))
	cases := []struct{ name, src, code string }{
		{"json open", docSrc("json.parse", "", "["), "too_deep"},
		{"json objects", docSrc("json.parse", "", `\{\"a\":`), "too_deep"},
		{"toml arrays", docSrc("toml.parse", "a = ", "["), "too_deep"},
		{"toml inline tables", docSrc("toml.parse", "a = ", `\{b = `), "too_deep"},
		{"toml dotted key", docSrc("toml.parse", "a", ".a") + "", "too_deep"},
		{"yaml flow", docSrc("yaml.parse", "", "["), "too_deep"},
		{"yaml flow mappings", docSrc("yaml.parse", "", `\{a: `), "too_deep"},
		{"yaml block", docSrc("yaml.parse", "", "- "), "too_deep"},
		{"toml long dotted keys", `var p = ".a"; for i in 0..8 { p = p + p }; var l = "k" + p + " = 1\n"; for i in 0..12 { l = l + l }; toml.parse(l)`, "too_large"},
		{"yaml alias bomb", `var d = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"; var p = "a"; ` +
			`for n in ["b", "c", "d", "e", "f", "g", "h", "i", "j"] { d = d + n + ": &" + n + " [*" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + "]\n"; p = n }; yaml.parse(d)`, "too_large"},
	}
	for _, tc := range cases {
		_, err := c.Exec(valuesCtx(t), client.ExecParams{Src: tc.src})
		t.Logf("%s: %v", tc.name, err)
		WantLangCode(t, err, tc.code)
	}
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, valuesRSS)
}

// TestHostileDeepFrame: a request 100 000 levels deep (valid JSON) gets
// INVALID_REQUEST with its id on a connection that stays open and serves
// the next request; so do 1 000 000 levels, and deep params of an exec by
// an attached token principal.
func TestHostileDeepFrame(t *testing.T) {
	k := Start(t, Options{MemCap: valuesMemCap})
	hb := k.Heartbeat(t)
	nc := k.Dial(t)
	r := bufio.NewReaderSize(nc, 1<<16)
	for i, depth := range []int{100_000, 1_000_000} {
		id := 7 + i
		SendFrame(t, nc, `{"jsonrpc":"2.0","id":`+itoa(id)+`,"method":"parse","params":{"src":"1","x":`+
			strings.Repeat("[", depth)+strings.Repeat("]", depth)+`}}`)
		ans := ReadFrame(t, nc, r, 10*time.Second)
		if string(ans["id"]) != itoa(id) {
			t.Fatalf("depth %d: answer id %s, want %d", depth, ans["id"], id)
		}
		var e proto.RPCError
		if err := json.Unmarshal(ans["error"], &e); err != nil || e.Code != proto.CodeInvalidRequest {
			t.Fatalf("depth %d: answer %s, want INVALID_REQUEST", depth, ans["error"])
		}
	}
	SendFrame(t, nc, `{"jsonrpc":"2.0","id":99,"method":"parse","params":{"src":"1 + 1"}}`)
	if ans := ReadFrame(t, nc, r, 10*time.Second); string(ans["id"]) != "99" || ans["result"] == nil {
		t.Fatalf("connection does not serve after the deep frames: %v", ans)
	}

	// An attached token principal's exec with deep params: the same
	// answer, and the attachment keeps serving.
	tok, _ := json.Marshal(k.Token(t, "agent:evil"))
	SendFrame(t, nc, `{"jsonrpc":"2.0","id":1,"method":"session.attach","params":{"session":"frames","token":`+string(tok)+`}}`)
	if ans := ReadFrame(t, nc, r, 10*time.Second); ans["result"] == nil {
		t.Fatalf("attach: %s", ans["error"])
	}
	SendFrame(t, nc, `{"jsonrpc":"2.0","id":2,"method":"exec","params":{"src":"1","elide":`+
		strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000)+`}}`)
	if ans := ReadFrame(t, nc, r, 10*time.Second); string(ans["id"]) != "2" || !strings.Contains(string(ans["error"]), itoa(proto.CodeInvalidRequest)) {
		t.Fatalf("deep exec: %v", ans)
	}
	SendFrame(t, nc, `{"jsonrpc":"2.0","id":3,"method":"exec","params":{"src":"2 + 2"}}`)
	if ans := ReadFrame(t, nc, r, 10*time.Second); string(ans["id"]) != "3" || !strings.Contains(string(ans["result"]), `"v":4`) {
		t.Fatalf("exec after a deep request: %v", ans)
	}
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, valuesRSS)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestHostileRenders: a 64 MiB string of newlines and a 64 KiB string of
// NUL bytes render within renderBound once encoded, in the exec answer,
// in value.get's render, in render_head of an elided ref and in the
// render channel's events; building the first takes its own memory, but
// rendering it must not take more.
func TestHostileRenders(t *testing.T) {
	k := Start(t, Options{MemCap: valuesMemCap})
	hb := k.Heartbeat(t)
	c := k.Attach(t, "render", k.Token(t, "agent:evil"))
	sub, err := c.SubscribeLive(valuesCtx(t), "render")
	if err != nil {
		t.Fatalf("subscribe render: %v", err)
	}
	for _, tc := range []struct{ name, src string }{
		{"newlines", `var s = "\n"; for i in 0..26 { s = s + s }; s`},
		{"nul", `var s = "\u{0}"; for i in 0..16 { s = s + s }; s`},
		{"nul list", `var s = "\u{0}"; for i in 0..16 { s = s + s }; [s, s, {a: s}]`},
		{"nul output", `var s = "\u{0}"; for i in 0..16 { s = s + s }; echo (s); 1`},
	} {
		raw, err := execRaw(t, c, tc.src)
		res := wantBoundedAnswer(t, tc.name, raw, err, "")
		var got json.RawMessage
		if err := c.Call(valuesCtx(t), "value.get", client.ValueGetParams{Ref: res.Ref, Format: "render"}, &got); err != nil || len(got) > answerBound {
			t.Fatalf("%s: value.get render: %d bytes, %v", tc.name, len(got), err)
		}
		if err := c.Call(valuesCtx(t), "value.get", client.ValueGetParams{Ref: res.Ref, Elide: &client.Elide{MaxBytes: 1024}}, &got); err != nil || len(got) > 2048 {
			t.Fatalf("%s: value.get with a 1 KiB budget: %d bytes, %v", tc.name, len(got), err)
		}
	}
	// Every render event is bounded by its encoded size too.
	deadline := time.After(5 * time.Second)
	for n := 0; n < 4; {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				t.Fatalf("render subscription ended: %v", sub.Err())
			}
			if b := ev.Payload; len(b) > renderBound+512 {
				t.Fatalf("render event of %d bytes", len(b))
			}
			n++
		case <-deadline:
			t.Fatalf("only %d render events", n)
		}
	}
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, valuesRSS)
}
