package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

func TestExecParamsMatchMarshal(t *testing.T) {
	odd := []string{"", "[3, 1, 2].sort()", `"q" \ b`, "<a>&</a>", "nl\n\r\t\b\f\x00\x1f\x7f",
		"\u2028\u2029", "ünï 日本 🐟", "bad \xff\xfe \xe2\x80"}
	var cases []proto.ExecParams
	for _, s := range odd {
		cases = append(cases,
			proto.ExecParams{Src: s},
			proto.ExecParams{Src: s, Mode: s, Position: s, PlanRef: s},
			proto.ExecParams{Src: s, Mode: "run", Position: "value", TimeoutMS: 250},
		)
	}
	for _, e := range []*proto.Elide{{}, {MaxBytes: 1}, {MaxRows: -2}, {MaxItems: 3}, {MaxBytes: 1, MaxRows: 2, MaxItems: 3}, {MaxBytes: 1, MaxItems: 1 << 40}} {
		cases = append(cases, proto.ExecParams{Src: "x", Elide: e})
	}
	cases = append(cases,
		proto.ExecParams{Src: "x", Async: true, Background: true, Watch: true, TimeoutMS: -1},
		proto.ExecParams{Src: "x", TimeoutMS: 1<<63 - 1},
		proto.ExecParams{Src: "x", TimeoutMS: -1 << 63},
	)
	for _, p := range cases {
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := execParams(&p)
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("execParams(%+v) = %s, %v; json.Marshal: %s", p, got, ok, want)
		}
		if c, ok := execCallParams(p).(client.Encoded); !ok || !bytes.Equal(c, want) {
			t.Errorf("execCallParams(%+v) = %s", p, c)
		}
	}
	p := proto.ExecParams{Src: "x", Display: &proto.Display{FoldNames: true}}
	if got, ok := execParams(&p); ok {
		t.Errorf("execParams took a Display: %s", got)
	}
	if _, ok := execCallParams(p).(proto.ExecParams); !ok {
		t.Error("execCallParams did not leave a Display to json.Marshal")
	}
}

func FuzzExecParams(f *testing.F) {
	f.Add("[3, 1, 2].sort()", "run", "value", "", int64(250), false, false, 0, 0, 0, false)
	f.Add("<&>\u2028\xff", "", "", "ref", int64(-1), true, true, 1, 2, 3, true)
	f.Fuzz(func(t *testing.T, src, mode, pos, ref string, ms int64, async, bg bool, eb, er, ei int, watch bool) {
		p := proto.ExecParams{Src: src, Mode: mode, Position: pos, PlanRef: ref, TimeoutMS: ms, Async: async, Background: bg, Watch: watch}
		if eb != 0 || er != 0 || ei != 0 {
			p.Elide = &proto.Elide{MaxBytes: eb, MaxRows: er, MaxItems: ei}
		}
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := execParams(&p); !ok || !bytes.Equal(got, want) {
			t.Fatalf("execParams(%+v) = %s, %v; json.Marshal: %s", p, got, ok, want)
		}
	})
}
