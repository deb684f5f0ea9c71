//go:build linux

package hostile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/proto"
)

// Source attack bounds, stated once.
const (
	sourceMemCap = 2 << 30   // RLIMIT_AS of the kernel
	sourceRSS    = 384 << 20 // peak RSS the kernel may reach in any of these tests
	// frameSrc is the longest source a parse request can carry: the frame
	// less its envelope.
	frameSrc = proto.MaxFrame - 128
)

// parseErr is the data of a PARSE_ERROR.
type parseErr struct {
	Span struct {
		Start, End int
	} `json:"span"`
	Hint       *string `json:"hint"`
	Incomplete bool    `json:"incomplete"`
}

// wantParseError checks that err is PARSE_ERROR whose message holds msg and
// whose data carries a hint.
func wantParseError(t *testing.T, err error, msg string) {
	t.Helper()
	WantCode(t, err, proto.CodeParseError)
	if !strings.Contains(err.Error(), msg) {
		t.Fatalf("parse error %q does not say %q", err, msg)
	}
	var d parseErr
	if derr := client.ErrorData(err, &d); derr != nil {
		t.Fatalf("error data: %v", derr)
	}
	if d.Hint == nil || *d.Hint == "" || d.Incomplete {
		t.Fatalf("parse error data %+v: want a hint, not incomplete", d)
	}
}

// sourceAttack starts a kernel with a heartbeat and returns it; done stops the
// heartbeat and checks the kernel is alive and its peak RSS under
// sourceRSS.
func sourceAttack(t *testing.T) (k *Kernel, done func()) {
	t.Helper()
	k = Start(t, Options{MemCap: sourceMemCap})
	hb := k.Heartbeat(t)
	return k, func() {
		t.Helper()
		hb.Stop(t)
		k.Alive(t)
		k.WantRSSUnder(t, sourceRSS)
	}
}

// TestHostileParseFlatChain: before attach, the flat chain `1+1+…` of 1.5
// million terms (1,500 times syntax.MaxDepth) is PARSE_ERROR "nested too
// deeply", as are chains of fields, calls, else-ifs and commands.
func TestHostileParseFlatChain(t *testing.T) {
	k, done := sourceAttack(t)
	c := k.Client(t)
	for _, tc := range []struct{ src, msg string }{
		{"1" + strings.Repeat("+1", 1_500_000), "nested too deeply"},
		{"x" + strings.Repeat(".a", 1_000_000), "nested too deeply"},
		{"f" + strings.Repeat("()", 1_000_000), "nested too deeply"},
		{"if a { }" + strings.Repeat(" else if a { }", 100_000), "nesting is too deep"},
		{strings.Repeat("a (", 1_000_000), "nesting is too deep"},
		{strings.Repeat(`"{`, 1_000_000), "nest too deeply"},
	} {
		_, err := c.Parse(Ctx(t), tc.src)
		wantParseError(t, err, tc.msg)
	}
	done()
}

// TestHostileParseHugeSource: before attach, a frame's worth (16 MiB) of
// `1;` is PARSE_ERROR "too large to parse" (16 times syntax.MaxNodes), and
// a source within the node bound whose AST's JSON would pass the frame is
// PARSE_ERROR "too large to answer", not a dropped connection.
func TestHostileParseHugeSource(t *testing.T) {
	k, done := sourceAttack(t)
	c := k.Client(t)
	start := time.Now()
	_, err := c.Parse(Ctx(t), strings.Repeat("1;", frameSrc/2))
	wantParseError(t, err, "too large to parse")
	t.Logf("16 MiB of `1;` refused in %v", time.Since(start))

	_, err = c.Parse(Ctx(t), strings.Repeat("1;", syntax.MaxNodes/2-1)) // ~100 bytes of JSON a statement
	wantParseError(t, err, "too large to answer")

	// The connection still serves, and a fitting source still parses.
	res, err := c.Parse(Ctx(t), "1 + 2")
	if err != nil || res.ASTVersion != 2 {
		t.Fatalf("parse after the attack: %v %+v", err, res)
	}
	done()
}

// TestHostileExecExplainMillionTerms: an attached token principal's exec
// and explain of a million-term chain are PARSE_ERROR, and an evaluation
// whose calls each nest a deep expression raises recursion_limit instead
// of overflowing the stack.
func TestHostileExecExplainMillionTerms(t *testing.T) {
	k, done := sourceAttack(t)
	c := k.Attach(t, "s1", k.Token(t, "agent:evil"))
	chain := "1" + strings.Repeat(" + 1", 1_000_000)
	_, err := c.Exec(Ctx(t), client.ExecParams{Src: chain})
	wantParseError(t, err, "nested too deeply")
	err = c.Call(Ctx(t), "explain", map[string]any{"src": chain}, nil)
	wantParseError(t, err, "nested too deeply")

	deep := "fn f(n) { f(n + 1)" + strings.Repeat(" + 1", syntax.MaxDepth-20) + " }\nf(0)"
	_, err = c.Exec(Ctx(t), client.ExecParams{Src: deep})
	WantLangCode(t, err, "recursion_limit")
	done()
}

// TestHostileExplainAST: explain of an "ast" twice as deep as
// syntax.MaxDepth (past the decoder's JSON nesting bound), one 1.5 times
// as deep (within it, past the node depth bound), or of more JSON values
// than the decoder takes is INVALID_PARAMS naming the bound. The deep ones
// go as raw frames. (Deeper still, the request frame itself is refused by
// the frame depth bound, proto.MaxFrameDepth, before explain sees it.)
func TestHostileExplainAST(t *testing.T) {
	k, done := sourceAttack(t)
	tok := k.Token(t, "agent:evil")
	raw := k.Dial(t)
	r := bufio.NewReaderSize(raw, 64<<10)
	SendFrame(t, raw, `{"jsonrpc":"2.0","id":1,"method":"session.attach","params":{"session":"s1","token":"`+tok+`"}}`)
	if m := ReadFrame(t, raw, r, 10*time.Second); m["error"] != nil {
		t.Fatalf("attach: %s", m["error"])
	}
	const sp = `"span":{"start":0,"end":0}`
	unary := func(levels int) string {
		return `{"stmts":[{"kind":"expr","x":` + strings.Repeat(`{"kind":"unary","op":"-","x":`, levels) +
			`{"kind":"null",` + sp + `}` + strings.Repeat(`,`+sp+`}`, levels) + `,` + sp + `}]}`
	}
	one := `{"kind":"expr","x":{"kind":"int","value":1,` + sp + `},` + sp + `}`
	n := (frameSrc - 64) / (len(one) + 1)
	huge := `{"stmts":[` + strings.Repeat(one+",", n-1) + one + `]}`
	for i, tc := range []struct{ ast, want string }{
		{unary(2 * syntax.MaxDepth), "JSON nesting deeper than"},
		{unary(3 * syntax.MaxDepth / 2), "AST nested deeper than"},
		{huge, "JSON values"},
	} {
		SendFrame(t, raw, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"explain","params":{"ast":%s}}`, i+2, tc.ast))
		m := ReadFrame(t, raw, r, 30*time.Second)
		var e struct {
			Code int    `json:"code"`
			Data string `json:"data"`
		}
		if err := json.Unmarshal(m["error"], &e); err != nil || e.Code != proto.CodeInvalidParams || !strings.Contains(e.Data, tc.want) {
			t.Errorf("ast %d: answer %s, want %d saying %q", i, m["error"], proto.CodeInvalidParams, tc.want)
		}
	}
	done()
}

// TestHostileCompleteBeforeAttach: completion before attach takes at most
// 1 MiB of source, which it scans once; past it, INVALID_PARAMS.
func TestHostileCompleteBeforeAttach(t *testing.T) {
	k, done := sourceAttack(t)
	c := k.Client(t)
	var res struct {
		Candidates []json.RawMessage `json:"candidates"`
	}
	for _, src := range []string{strings.Repeat("(", 1<<20), strings.Repeat(`"{`, 1<<19), strings.Repeat("a.", 1<<19)} {
		if err := c.Call(Ctx(t), "complete", map[string]any{"src": src}, &res); err != nil {
			t.Fatalf("complete of 1 MiB: %v", err)
		}
	}
	err := c.Call(Ctx(t), "complete", map[string]any{"src": strings.Repeat("(", 10<<20)}, &res)
	WantCode(t, err, proto.CodeInvalidParams)
	done()
}

// TestHostileSigtermDuringParse: SIGTERM while the kernel works on the
// largest sources a frame can carry ends it within the contract's 5 s.
func TestHostileSigtermDuringParse(t *testing.T) {
	k := Start(t, Options{MemCap: sourceMemCap})
	srcs := []string{
		strings.Repeat("1;", frameSrc/2),
		strings.Repeat("1;", syntax.MaxNodes/2-1),
		"'" + strings.Repeat("x", frameSrc-2) + "'",
	}
	for _, src := range srcs {
		c := k.Client(t)
		go c.Parse(Ctx(t), src) // answers are not awaited: the kernel is stopped mid-way
	}
	time.Sleep(200 * time.Millisecond) // the requests are being read and parsed
	start := time.Now()
	k.stopping = true // this test stops it
	k.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.Exited():
		t.Logf("kernel exited %v after SIGTERM", time.Since(start))
	case <-time.After(5 * time.Second):
		t.Fatalf("kernel still running 5 s after SIGTERM")
	}
}
