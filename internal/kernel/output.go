package kernel

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxExecOutput bounds the statement-position command output one exec
// keeps for its render event.
const MaxExecOutput = 64 << 10

// boundedBuffer collects command output up to MaxExecOutput bytes and
// counts the rest. It is safe for concurrent writers.
type boundedBuffer struct {
	mu    sync.Mutex
	buf   []byte
	total int64
}

// Write keeps what fits and always reports success, so a command never
// fails because its output is not kept.
func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	if room := MaxExecOutput - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// snapshot returns the kept output as valid UTF-8, the total written and
// whether some was left out.
// bytes returns a copy of the output kept.
func (b *boundedBuffer) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf...)
}

func (b *boundedBuffer) snapshot() (text string, total int64, truncated bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := string(b.buf)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s, b.total, b.total > int64(len(b.buf))
}
