package kernel

import (
	"strings"
	"testing"
)

func TestBoundedBuffer(t *testing.T) {
	var b boundedBuffer
	chunk := []byte(strings.Repeat("a", 1000))
	for i := 0; i < 100; i++ {
		if n, err := b.Write(chunk); n != len(chunk) || err != nil {
			t.Fatalf("write = %d, %v", n, err)
		}
	}
	text, total, truncated := b.snapshot()
	if len(text) != MaxExecOutput || total != 100_000 || !truncated {
		t.Errorf("kept %d of %d, truncated %v", len(text), total, truncated)
	}
	var u boundedBuffer
	u.Write([]byte("ok\xff"))
	text, total, truncated = u.snapshot()
	if text != "ok\uFFFD" || total != 3 || truncated {
		t.Errorf("invalid UTF-8 snapshot %q %d %v", text, total, truncated)
	}
}
