package client

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzDispatch feeds arbitrary frames to the demultiplexer: it must never
// panic, must fail only on invalid JSON, and must resolve the pending call
// at most once.
func FuzzDispatch(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"x","data":{"span":null}}}`,
		`{"jsonrpc":"2.0","method":"event","params":{"channel":"c","seq":1,"ts":2,"payload":null}}`,
		`{"jsonrpc":"2.0","method":"event","params":{"channel":"c","seq":1,"payload":{"dropped":2,"latest_seq":3}}}`,
		`{"id":null,"error":{"code":-32700,"message":"bad"}}`,
		`{"id":"1","result":1}`,
		`[1,2]`, `"x"`, `{`, `{"id":1e400}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		var events int
		cn := newConn(nil, func(Event) { events++ })
		ch := make(chan reply, 1)
		cn.pending[1] = ch
		err := cn.dispatch(frame)
		if err != nil {
			if !errors.Is(err, ErrMalformedFrame) || json.Valid(frame) {
				t.Fatalf("dispatch(%q) = %v", frame, err)
			}
			return
		}
		select {
		case r := <-ch:
			if r.err == nil && !json.Valid(r.result) {
				t.Fatalf("result %q is not JSON", r.result)
			}
			if _, still := cn.pending[1]; still {
				t.Fatal("resolved call left pending")
			}
		default:
		}
	})
}

func BenchmarkCall(b *testing.B) {
	k := newFakeKernel(b)
	c, err := Dial(b.Context(), k.path)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	params := map[string]int{"a": 1}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var out map[string]int
		for pb.Next() {
			if err := c.Call(b.Context(), "echo", params, &out); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
