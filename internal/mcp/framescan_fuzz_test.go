package mcp

import (
	"encoding/json"
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
// on is one the SDK decodes as a message.
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
		if a := g.screen(t2); a == nil {
			if _, err := jsonrpc.DecodeMessage(t2); err != nil {
				t.Fatalf("the gate passed %q, which the SDK cannot decode: %v", t2, err)
			}
		} else if !json.Valid(a) {
			t.Fatalf("the gate's answer %q is not JSON", a)
		}
	})
}
