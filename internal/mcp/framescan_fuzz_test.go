package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// bracketDepth is the nesting of valid JSON b, counted the plain way.
func bracketDepth(b []byte) int {
	depth, d, in, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case in && esc:
			esc = false
		case in && c == '\\':
			esc = true
		case in && c == '"':
			in = false
		case in:
		case c == '"':
			in = true
		case c == '{' || c == '[':
			d++
			depth = max(depth, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return depth
}

// FuzzScanFrame: the frame scanner agrees with encoding/json on what is
// valid (below encoding/json's own depth limit) and with a plain count on
// the depth; the gate never panics on any frame, and any frame it passes
// on is one the SDK decodes as a message, and decodeFrame decodes it as
// the SDK does.
func FuzzScanFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","result":{"x":[1,2,{"y":null}]}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no","data":[true,false]}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"\u006asonrpc":"2.0","id":-0.5e+3,"method":"x","params":[]}`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`{"a":"\u00e9\n\"","b":1e999}`, `  5 `, `"x"`, `{`, `[1,]`, `{"a" 1}`, nested(200),
		`{"jsonrpc":"2.0","id":1,"method":"ping","jsonrpc":"2.0"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sc := scanFrame(b, envNames)
		if sc.depth <= 10000 {
			if sc.valid != json.Valid(b) {
				t.Fatalf("scanFrame valid=%v, json.Valid=%v", sc.valid, json.Valid(b))
			}
		}
		if sc.valid {
			if d := bracketDepth(b); d != sc.depth {
				t.Fatalf("depth %d, counted %d", sc.depth, d)
			}
		}
		g := newGate(&lockedWriter{w: &bufCloser{}}, MaxInFlightBytes)
		t2 := []byte(strings.TrimSpace(string(b)))
		if len(t2) == 0 {
			return
		}
		if a, sc := g.check(t2); a == nil {
			want, err := jsonrpc.DecodeMessage(t2)
			if err != nil {
				t.Fatalf("the gate passed %q, which the SDK cannot decode: %v", t2, err)
			}
			got, err := decodeFrame(t2, &sc)
			if err != nil || !sameMessage(got, want) {
				t.Fatalf("decodeFrame(%q) = %#v, %v; the SDK decodes %#v", t2, got, err, want)
			}
		} else if !json.Valid(a) {
			t.Fatalf("the gate's answer %q is not JSON", a)
		}
	})
}

// sameMessage reports whether a and b are the same decoded message.
func sameMessage(a, b jsonrpc.Message) bool {
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && string(a.Params) == string(b.Params) && (a.Params == nil) == (b.Params == nil)
	case *jsonrpc.Response:
		b, ok := b.(*jsonrpc.Response)
		return ok && a.ID == b.ID && string(a.Result) == string(b.Result) && fmt.Sprint(a.Error) == fmt.Sprint(b.Error)
	}
	return false
}

// TestDecodeFrame: every frame the gate passes decodes as the SDK
// decodes it, by the scan (plain requests) or by the SDK's decoder
// (anything else), and the message does not alias the line buffer.
func TestDecodeFrame(t *testing.T) {
	frames := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"[3, 1, 2].sort()"}}}`,
		`{"jsonrpc":"2.0","id":"abc","method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a\u00e9","method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0.5e+3,"method":"x","params":[]}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"x","params":{ "a" : [ 1 , 2 ] }}`,
		`{"jsonrpc":"2.0","id":null,"method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"x","params":null}`,
		`{"jsonrpc":"2.0","id":2,"method":"x","params":"p"}`,
		`{"jsonrpc":"2.0","id":2,"method":"to\u006fls/list"}`,
		`{"jsonrpc":"2.0","id":2,"m\u0065thod":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":""}`,
		`{"jsonrpc":"2.0","id":2,"method":"x","result":5,"extra":{"y":1}}`,
		`{"jsonrpc":"2.0","id":"r","result":{"x":[1,2,{"y":null}]}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no","data":[true,false]}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"x\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"\xffx\"}",
	}
	for _, fr := range frames {
		g := newGate(&lockedWriter{w: &bufCloser{}}, MaxInFlightBytes)
		line := []byte(fr)
		a, sc := g.check(line)
		if a != nil {
			t.Errorf("the gate answered %s: %s", fr, a)
			continue
		}
		want, err := jsonrpc.DecodeMessage([]byte(fr))
		if err != nil {
			t.Fatalf("%s: %v", fr, err)
		}
		got, err := decodeFrame(line, &sc)
		for i := range line {
			line[i] = 'X' // the buffer is reused for the next line
		}
		if err != nil || !sameMessage(got, want) {
			t.Errorf("decodeFrame(%s) = %#v, %v; the SDK decodes %#v", fr, got, err, want)
		}
	}
}
