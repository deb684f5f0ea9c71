package main

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"unicode/utf8"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/diag"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// FuzzQuoteShoal: quoteShoal(s) parses as one string literal whose value
// is s, for every valid UTF-8 s (so a script argument reaches `args`
// exactly, whatever it holds).
func FuzzQuoteShoal(f *testing.F) {
	for _, s := range []string{"", "a", "it's", `"{x}"`, `\`, "\x00\n\t", "ü", "'{\\}'\x7f"} {
		f.Add(s)
	}
	dir, _ := os.Getwd()
	in, err := eval.New(eval.Options{Registry: registry(), Host: host.NewOS(host.AllowAll), Dir: dir})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		q := quoteShoal(s)
		prog, err := syntax.Parse(q, syntax.ParseOptions{})
		if err != nil {
			t.Fatalf("%q quoted %s does not parse: %v", s, q, err)
		}
		v, err := in.EvalProgram(context.Background(), prog)
		if err != nil {
			t.Fatalf("%q quoted %s: %v", s, q, err)
		}
		if got, ok := v.(value.Str); !ok || string(got) != s {
			t.Fatalf("%q quoted %s evaluates to %#v", s, q, v)
		}
	})
}

// FuzzRemoteAnswers: whatever a kernel answers as an exec's value or an
// error's data, decoding it gives a value or an error, never a panic.
func FuzzRemoteAnswers(f *testing.F) {
	f.Add(`{"$":"int","v":3}`, "3", -32002, `{"ref":"out:1","code":"type_error","span":{"start":0,"end":3},"hint":"h","status":{"$":"int","v":7}}`)
	f.Add(`{"$":"outcome","status":0,"ok":true,"signal":null,"out":{"$":"str","v":"hi"},"err":{"$":"str","v":""},"dur_ns":0,"pid":null,"cmd":"echo hi"}`, "hi", -32001, `{"span":{"start":5,"end":4},"incomplete":true}`)
	f.Add(`{"$":"ref","uri":"shoal://out/1","of":"list","n":9}`, "", -32010, `{"effects":[{"kind":"proc_spawn","program":"x"},3,null]}`)
	f.Add(`[]`, "", -32011, `"x"`)
	f.Fuzz(func(t *testing.T, wire, render string, code int, data string) {
		res := &client.ExecResult{Value: json.RawMessage(wire), Render: render}
		if !json.Valid(res.Value) {
			res.Value = nil
		}
		v, err := decodeResult(res)
		if err == nil && v == nil {
			t.Fatal("no value and no error")
		}
		rpc := &proto.RPCError{Code: code, Message: "m"}
		if json.Valid([]byte(data)) {
			rpc.Data = json.RawMessage(data)
		}
		_, e := remoteError(rpc)
		if e == nil {
			t.Fatal("an RPC error decoded to no error")
		}
		// A span from the kernel may not fit the source: the diagnostic
		// still renders.
		if out := diag.Format("-c", render, e); out == "" {
			t.Fatal("empty diagnostic")
		}
	})
}
