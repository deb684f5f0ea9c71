package lsp

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The attached caches stay within their bounds: ten times the entries, or
// keys ten times the bytes, leave at most the bound, the newest kept.
func TestLRUBounds(t *testing.T) {
	c := newLRU[int](100, 1<<20)
	for i := range 1000 {
		c.put(fmt.Sprint("k", i), i, time.Now())
	}
	if c.len() != 100 {
		t.Fatalf("%d entries, bound 100", c.len())
	}
	if _, _, ok := c.get("k0"); ok {
		t.Error("the oldest entry was kept")
	}
	if v, _, ok := c.get("k999"); !ok || v != 999 {
		t.Errorf("the newest entry: %v %v", v, ok)
	}

	b := newLRU[bool](1000, 1000)
	for i := range 100 {
		b.put(fmt.Sprint(i, strings.Repeat("x", 98)), true, time.Now())
	}
	if b.bytes > 1000 || b.len() > 10 {
		t.Fatalf("%d bytes in %d keys, bound 1000 bytes", b.bytes, b.len())
	}
	b.put(strings.Repeat("y", 10000), true, time.Now())
	if _, _, ok := b.get(strings.Repeat("y", 10000)); ok || b.bytes > 1000 {
		t.Error("a key over the byte bound was stored")
	}
	b.clear()
	if b.len() != 0 || b.bytes != 0 {
		t.Error("clear left entries")
	}
}
