package journal

import (
	"reflect"
	"testing"
)

func FuzzLogCodec(f *testing.F) {
	f.Add([]byte{}, "exec", "src", int64(7), uint64(3), true)
	f.Add([]byte{1, 0, 1, 2}, "", "", int64(-1), uint64(0), false)
	f.Fuzz(func(t *testing.T, raw []byte, kind, text string, n int64, u uint64, on bool) {
		_, _ = decodeOp(raw) // never panics
		st := int(n)
		op := &logOp{LSN: u, Finish: on, ID: n, Kind: kind, Parent: -n, Session: text, Principal: kind + text,
			StartNS: n, Cwd: text, Src: text + text, Head: kind, Finished: !on, SetEffects: on, Mask: n,
			Verdict: kind, OK: on, Opaque: !on, FinishNS: -n, RefN: n, Code: text, Seq: u, TSeq: u + 1}
		if on {
			op.Status = &st
			op.Outputs = []byte(text + "[]")
		}
		if len(text) > 0 {
			op.AST, op.Effects = []byte(text), []byte(kind+text)
		}
		got, err := decodeOp(appendOp(nil, op))
		if err != nil {
			t.Fatalf("decode of an encoding: %v", err)
		}
		if !reflect.DeepEqual(got, op) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, op)
		}
		if _, err := decodeOp(appendOp(nil, op)[:len(appendOp(nil, op))-1]); err == nil {
			t.Fatal("a truncated record decoded")
		}
	})
}
