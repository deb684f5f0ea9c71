package pty

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/vt"
)

// benchOutput is 1 MiB of 70-column text lines, what a build log or a
// flood looks like.
var benchOutput = []byte(strings.Repeat(strings.Repeat("0123456789", 7)+"\r\n", (1<<20)/72))

// BenchmarkRender measures how fast output is rendered (the bytes a
// session's feeder gets through per second, which decides when output is
// skipped): "session" is the feeder's path (clamp, emulator write under
// the screen lock, scrollback moved to text), "emulator" the emulator
// alone, and the floor copies the same bytes into a buffer, a lower bound
// no terminal can beat.
func BenchmarkRender(b *testing.B) {
	b.Run("session", func(b *testing.B) {
		s := &Session{cols: 80, rows: 24, changed: make(chan struct{})}
		s.scroll.init(ScrollbackLines, ScrollbackBytes)
		s.emu = vt.NewEmulator(80, 24)
		s.emu.SetScrollbackSize(emuScrollback(80))
		go drainReplies(s.emu)
		b.SetBytes(int64(len(benchOutput)))
		for b.Loop() {
			work := append([]byte(nil), benchOutput...)
			for off := 0; off < len(work); off += feedChunk {
				s.render(s.clamp.filter(work[off:min(len(work), off+feedChunk)]))
			}
		}
	})
	b.Run("emulator", func(b *testing.B) {
		e := vt.NewEmulator(80, 24)
		e.SetScrollbackSize(0)
		go drainReplies(e)
		b.SetBytes(int64(len(benchOutput)))
		for b.Loop() {
			e.Write(benchOutput)
		}
	})
	b.Run("floor", func(b *testing.B) {
		var buf bytes.Buffer
		b.SetBytes(int64(len(benchOutput)))
		for b.Loop() {
			buf.Reset()
			buf.Write(benchOutput)
		}
	})
}

func drainReplies(e *vt.Emulator) {
	p := make([]byte, 1024)
	for {
		if _, err := e.Read(p); err != nil {
			return
		}
	}
}
