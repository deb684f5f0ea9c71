package kernel

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

func intList(n int) *value.List {
	items := make([]value.Value, n)
	for i := range items {
		items[i] = value.Int(i)
	}
	return value.NewList(items)
}

func TestElideBudgets(t *testing.T) {
	keys := make([]string, 600)
	vals := make([]value.Value, 600)
	for i := range keys {
		keys[i], vals[i] = fmt.Sprintf("k%d", i), value.Int(i)
	}
	for _, tc := range []struct {
		name   string
		v      value.Value
		l      limits
		elided bool
		n      int64
	}{
		{"small list", intList(3), limits{8192, 100, 500}, false, 0},
		{"list over items", intList(501), limits{1 << 20, 100, 500}, true, 501},
		{"list over bytes", intList(400), limits{1024, 100, 500}, true, 400},
		{"record over items", value.NewRecord(keys, vals), limits{1 << 20, 100, 500}, true, 600},
		{"long string", value.Str(strings.Repeat("é", 5000)), limits{8192, 100, 500}, true, 5000},
		{"short string", value.Str("hi"), limits{8192, 100, 500}, false, 0},
		{"bytes", value.Bytes(strings.Repeat("\x00", 9000)), limits{8192, 100, 500}, true, 9000},
	} {
		b, err := elide(tc.v, 7, tc.l)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		w, err := proto.DecodeWire(b)
		if err != nil {
			t.Fatalf("%s: invalid wire %.100s: %v", tc.name, b, err)
		}
		r, isRef := w.(*proto.Ref)
		if isRef != tc.elided {
			t.Errorf("%s: elided = %v (%.100s)", tc.name, isRef, b)
			continue
		}
		if !isRef {
			continue
		}
		if r.URI != "shoal://out/7" || r.N != tc.n || r.Of != value.TypeName(tc.v) {
			t.Errorf("%s: ref %+v", tc.name, r)
		}
		if len(b) > tc.l.maxBytes && len(b) > 2048 {
			t.Errorf("%s: ref itself is %d bytes", tc.name, len(b))
		}
	}
}

func TestElideLimits(t *testing.T) {
	var p *proto.Elide
	if l := elideLimits(p); l != (limits{DefaultMaxBytes, DefaultMaxRows, DefaultMaxItems}) {
		t.Errorf("defaults %+v", l)
	}
	p = &proto.Elide{MaxBytes: 1 << 30, MaxRows: 7}
	if l := elideLimits(p); l.maxBytes != HardCap || l.maxRows != 7 || l.maxItems != DefaultMaxItems {
		t.Errorf("limits %+v", l)
	}
}

func TestTruncateAndHead(t *testing.T) {
	if got := truncateUTF8("héllo", 4); got != "h…" {
		t.Errorf("truncate = %q", got)
	}
	if got := truncateUTF8("abc", 10); got != "abc" {
		t.Errorf("no-op truncate = %q", got)
	}
	if got := headLines("1\n2\n3\n4", 2, 100); got != "1\n2" {
		t.Errorf("head = %q", got)
	}
	if got := prefixRunes("héllo", 2); got != "hé" {
		t.Errorf("prefix = %q", got)
	}
	if a, b := runeRange("héllo", 1, 3); "héllo"[a:b] != "él" {
		t.Errorf("runeRange = %d %d", a, b)
	}
	if a, b := runeRange("héllo", 4, 99); "héllo"[a:b] != "o" {
		t.Errorf("runeRange tail = %d %d", a, b)
	}
	if a, b := runeRange("abc", 5, 2); a != b {
		t.Errorf("inverted range = %d %d", a, b)
	}
}
