package kernel

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

func TestNestedElision(t *testing.T) {
	l := limits{DefaultMaxBytes, DefaultMaxRows, DefaultMaxItems}
	huge := value.Str(strings.Repeat("z", 10_000))
	rows := make([]value.Value, 150)
	for i := range rows {
		rows[i] = value.Int(i)
	}
	bigTable := &value.Table{Cols: []string{"n"}, Data: [][]value.Value{rows}, N: len(rows)}
	for _, tc := range []struct {
		name string
		v    value.Value
		want []string // substrings of the encoding
	}{
		{"list of huge strings", value.NewList([]value.Value{huge, value.Str("ok"), huge}),
			[]string{`{"$":"list","v":[{"$":"ref","uri":"shoal://out/3#[0]","of":"str","n":10000`, `{"$":"str","v":"ok"}`, `"uri":"shoal://out/3#[2]"`}},
		{"record with a big table", value.NewRecord([]string{"t", "odd key"}, []value.Value{bigTable, value.NewList([]value.Value{huge})}),
			[]string{`"t":{"$":"ref","uri":"shoal://out/3#.t","of":"table","n":150`, `"uri":"shoal://out/3#.\"odd key\"[0]"`}},
		{"list of long lists", value.NewList([]value.Value{intList(600)}),
			[]string{`{"$":"list","v":[{"$":"ref","uri":"shoal://out/3#[0]","of":"list","n":600`}},
		{"table with a huge cell", &value.Table{Cols: []string{"s"}, Data: [][]value.Value{{value.Str("a"), huge}}, N: 2},
			[]string{`{"$":"table","cols":{"s":[{"$":"str","v":"a"},{"$":"ref","uri":"shoal://out/3#.s[1]"`, `"n":2}`}},
	} {
		b, err := elide(tc.v, 3, l)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, err := proto.DecodeWire(b); err != nil {
			t.Errorf("%s: invalid wire: %v\n%.300s", tc.name, err, b)
		}
		if len(b) > l.maxBytes {
			t.Errorf("%s: %d bytes over the budget", tc.name, len(b))
		}
		for _, w := range tc.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: %.400s\nlacks %s", tc.name, b, w)
			}
		}
	}
}

func TestNestedPathsResolve(t *testing.T) {
	// Every uri fragment the elider writes is a path value.get accepts.
	for _, frag := range []string{`[0]`, `.t`, `."odd key"[0]`, `.s[1]`} {
		if _, err := parsePath(frag); err != nil {
			t.Errorf("path %s: %v", frag, err)
		}
	}
}

func TestElisionUnderHardCapWithHugeBudgets(t *testing.T) {
	items := make([]value.Value, 50)
	for i := range items {
		items[i] = value.Str(strings.Repeat("q", 3000))
	}
	l := elideLimits(&proto.Elide{MaxBytes: 1 << 30, MaxItems: 1 << 20})
	b, err := elide(value.NewList(items), 1, l)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > HardCap {
		t.Errorf("%d bytes over the hard cap", len(b))
	}
	var w struct {
		Tag string `json:"$"`
	}
	json.Unmarshal(b, &w)
	if w.Tag != "list" && w.Tag != "ref" {
		t.Errorf("encoded as %q", w.Tag)
	}
}
