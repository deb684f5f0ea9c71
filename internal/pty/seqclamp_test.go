package pty

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
)

// MaxSliceCPU bounds the CPU time (of the thread rendering) the emulator
// may take for one slice the feeder renders under the screen lock, and
// MaxChunkCPU for all of one fuzzChunk of output, at fuzzCols×fuzzRows.
// Fuzzing runs without the race detector; the slice bound is an order of
// magnitude above what the slowest slices take here, the chunk bound
// three times the slowest chunk seen (4 KiB of ED 2, about 0.65 s).
const (
	MaxSliceCPU = 50 * time.Millisecond
	MaxChunkCPU = 2 * time.Second
	fuzzChunk   = 4 << 10
	fuzzCols    = 80
	fuzzRows    = 24
	// maxDimSliceCPU bounds one slice at MaxDim×MaxDim, where a single
	// scroll or clear of the emulator takes 40-100 ms here.
	maxDimSliceCPU = time.Second
)

// emuFeed is the feeder's pipeline without a terminal: the cluster clamp,
// the sequence clamp's slices, the emulator.
type emuFeed struct {
	emu   *vt.Emulator
	cc    clusterClamp
	sc    *seqClamp
	slow  time.Duration // the slowest slice
	total time.Duration
	n     int // slices
}

func newEmuFeed(cols, rows int) *emuFeed {
	f := &emuFeed{emu: vt.NewEmulator(cols, rows), sc: newSeqClamp(cols, rows)}
	f.emu.SetScrollbackSize(emuScrollback(cols))
	for _, cmd := range []int{0, 1, 2, 7, 8} {
		f.emu.RegisterOscHandler(cmd, func([]byte) bool { return true })
	}
	// Answers go nowhere; a reader keeps the emulator's pipe from
	// blocking it.
	go func() {
		buf := make([]byte, 4096)
		for {
			if _, err := f.emu.Read(buf); err != nil {
				return
			}
		}
	}()
	return f
}

// close ends the reader; the emulator's own Close is not safe beside a
// concurrent Read (see Session.Close).
func (f *emuFeed) close() { closeEmu(f.emu) }

func closeEmu(e *vt.Emulator) {
	if c, ok := e.InputPipe().(io.Closer); ok {
		_ = c.Close()
	}
}

// write feeds p as the feeder does and returns the CPU time it took, on
// this goroutine's thread (so other processes on the machine do not
// count).
func (f *emuFeed) write(p []byte) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var took time.Duration
	p = f.cc.filter(append([]byte(nil), p...))
	for len(p) > 0 || f.sc.pending() {
		out, n := f.sc.slice(p)
		p = p[n:]
		start := threadCPU()
		_, _ = f.emu.Write(out)
		f.emu.ClearScrollback()
		d := threadCPU() - start
		f.slow = max(f.slow, d)
		took += d
		f.n++
	}
	f.total += took
	return took
}

func screenText(e *vt.Emulator) string {
	var b strings.Builder
	for y := range e.Height() {
		for x := range e.Width() {
			c := e.CellAt(x, y)
			if c == nil || c.Content == "" {
				b.WriteByte(' ')
				continue
			}
			b.WriteString(c.Content)
		}
		b.WriteByte('\n')
	}
	pos := e.CursorPosition()
	fmt.Fprintf(&b, "cursor %d,%d", pos.X, pos.Y)
	return b.String()
}

// bombs are sequences that made the emulator loop on a parameter, resize
// itself or panic before the clamp.
var bombs = []struct{ name, seq string }{
	{"REP", "x\x1b[2000000000b"},
	{"ECH", "\x1b[2000000000X"},
	{"IL", "\x1b[2000000000L"},
	{"DL", "\x1b[2000000000M"},
	{"ICH", "\x1b[2000000000@"},
	{"DCH", "\x1b[2000000000P"},
	{"SU", "\x1b[2000000000S"},
	{"SD", "\x1b[2000000000T"},
	{"CHT", "\x1b[2000000000I"},
	{"CBT", "\x1b[2000000000Z"},
	{"CUF", "\x1b[2000000000C"},
	{"CUP", "\x1b[2000000000;2000000000H"},
	{"window size", "\x1b[8;65535;65535t"},
	{"DECSLPP", "\x1b[2000000000t"},
	{"DECSCPP", "\x1b[2000000000$|"},
	{"alternate screen", "\x1b[?1049h\x1b[?1049l"},
	{"DECSTBM past the screen", "\x1b[5;2000000000r\x1b[2000000000;1H\x1b[5L\n\n"},
	{"DECSLRM past the screen", "\x1b[?69h\x1b[5;2000000000s\x1b[3@"},
	{"long digits", "\x1b[" + strings.Repeat("9", 200) + "b"},
	{"many params", "\x1b[" + strings.Repeat("1;", 200) + "m"},
	{"long OSC", "\x1b]11;" + strings.Repeat("A", 8000) + "\x07"},
	{"RIS", "\x1bc"},
	{"ED 2", "\x1b[2J"},
}

// TestSeqClampBombs: each bomb, repeated over a 4 KiB chunk at 80×24,
// is rendered within MaxSliceCPU per slice and MaxChunkCPU in all; once
// at the largest screen (where one scroll or clear of the emulator alone
// takes tens of milliseconds) within maxDimSliceCPU per slice. None
// resizes the emulator or panics.
func TestSeqClampBombs(t *testing.T) {
	for _, dim := range [][2]int{{fuzzCols, fuzzRows}, {MaxDim, MaxDim}} {
		for _, b := range bombs {
			t.Run(fmt.Sprintf("%dx%d/%s", dim[0], dim[1], b.name), func(t *testing.T) {
				if raceEnabled && dim[0] == MaxDim {
					t.Skip("a 1000×1000 screen takes minutes under the race detector")
				}
				f := newEmuFeed(dim[0], dim[1])
				defer f.close()
				chunk, bound := []byte(b.seq), maxDimSliceCPU
				if dim[0] == fuzzCols {
					chunk, bound = bytes.Repeat(chunk, max(1, fuzzChunk/len(b.seq))), MaxSliceCPU
				}
				took := f.write(chunk)
				if raceEnabled {
					t.Logf("race detector: %d slices, slowest %v, all %v (not judged)", f.n, f.slow, took)
					return
				}
				if f.slow > bound {
					t.Errorf("slowest slice %v, bound %v", f.slow, bound)
				}
				if took > MaxChunkCPU {
					t.Errorf("chunk took %v, bound %v", took, MaxChunkCPU)
				}
				if f.emu.Width() != dim[0] || f.emu.Height() != dim[1] {
					t.Errorf("emulator is %dx%d", f.emu.Width(), f.emu.Height())
				}
				t.Logf("%d bytes: %d slices, slowest %v, all %v", len(chunk), f.n, f.slow, took)
			})
		}
	}
}

// TestSeqClampFaithful: ordinary output renders the same screen through
// the clamp as without it, whichever read boundaries split it.
func TestSeqClampFaithful(t *testing.T) {
	text := "plain \x1b[1;31mred\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[m e\u0301 \u4e16\u754c\r\n" +
		"\x1b[5;10Hat\x1b[2Aup\x1b[3Cright\x1b[K\x1b[1;1H\x1b[2@ins\x1b[1P\x1b[4X" +
		"\x1b[3;10r\x1b[3;1H\x1b[2L\x1b[1M\x1b[S\x1b[T\x1b[r" +
		"tab\tstop\x1b[2Iz\x1b[Zq-\x1b[5b\x1b[?25l\x1b[?1049hALT\x1b[?1049l" +
		"\x1b]11;?\x07\x1b]12;?\x1b\\after-st\x1b]0;title\x07\x1bPq#0;2;0;0;0\x1b\\\x1b_apc\x1b\\\x1b7\x1b[10;10Hsaved\x1b8back" +
		"\x1b(0lqk\x1b(B\x1b[4;1H\x1b[1J\x1b[6;1H" + strings.Repeat("line\r\n", 30) + "end\x1b[6n"
	want := func() string {
		e := vt.NewEmulator(40, 12)
		go func() {
			buf := make([]byte, 256)
			for {
				if _, err := e.Read(buf); err != nil {
					return
				}
			}
		}()
		defer closeEmu(e)
		_, _ = e.Write([]byte(text))
		return screenText(e)
	}()
	for _, step := range []int{1, 2, 3, 7, 64, len(text)} {
		f := newEmuFeed(40, 12)
		for i := 0; i < len(text); i += step {
			f.write([]byte(text[i:min(len(text), i+step)]))
		}
		if got := screenText(f.emu); got != want {
			t.Errorf("split every %d bytes:\n%s\nwant\n%s", step, got, want)
		}
		f.close()
	}
}

// TestSeqClampSlices: a long REP is cut into slices of bounded work, and
// the pieces repeat the character as often as the screen can show.
func TestSeqClampSlices(t *testing.T) {
	sc := newSeqClamp(MaxDim, MaxDim)
	sc.repCredit = sc.screen() * sc.printWork()
	in := []byte("x\x1b[2000000000b")
	var all []byte
	slices := 0
	for len(in) > 0 || sc.pending() {
		out, n := sc.slice(in)
		in = in[n:]
		if sc.work > sliceWork+sc.printWork()*max(1, sliceWork/sc.printWork()) {
			t.Fatalf("slice work %d", sc.work)
		}
		all = append(all, out...)
		slices++
	}
	reps := 0
	for _, m := range bytes.Split(all, []byte("\x1b[")) {
		var k int
		if _, err := fmt.Sscanf(string(m), "%db", &k); err == nil {
			reps += k
		}
	}
	if reps != MaxDim*MaxDim {
		t.Errorf("REP pieces repeat %d times, want %d", reps, MaxDim*MaxDim)
	}
	t.Logf("%d slices, %d bytes", slices, len(all))
}

// TestSeqClampResizeBetweenSlices: a sequence held for the next slice
// and a REP not yet emitted, clamped for a large screen, are clamped
// again when the screen shrinks before that slice is rendered: the
// scroll margins never pass the smaller screen (which panicked the
// emulator) and the REP repeats no more than it can show.
func TestSeqClampResizeBetweenSlices(t *testing.T) {
	for _, head := range []string{"\x1b[2J\x1b[1;1000r", "x\x1b[1000000b"} {
		sc := newSeqClamp(MaxDim, MaxDim)
		sc.repCredit = sc.screen() * sc.printWork()
		in := []byte(head + "\x1b[1000;1H\x1b[5L\n")
		out, n := sc.slice(in)
		if !sc.pending() {
			t.Fatalf("%q: nothing held after the first slice %q", head, out)
		}
		sc.resize(fuzzCols, fuzzRows)
		e := newEmuFeed(fuzzCols, fuzzRows)
		e.sc = sc
		e.write(in[n:])
		if e.slow > MaxSliceCPU && !raceEnabled {
			t.Errorf("%q: a slice took %v after the resize", head, e.slow)
		}
		if got := e.emu.Height(); got != fuzzRows {
			t.Errorf("%q: emulator has %d rows", head, got)
		}
		e.close()
	}
}

// FuzzEmulatorWork feeds arbitrary output through the clamps into the
// emulator at a fixed screen size: no slice may take more than
// MaxSliceCPU and no fuzzChunk more than MaxChunkCPU, and nothing may
// panic or resize the emulator.
func FuzzEmulatorWork(f *testing.F) {
	for _, b := range bombs {
		f.Add([]byte(b.seq))
	}
	f.Add([]byte("hello\r\n\x1b[31mworld\x1b[0m\x1b[2J\x1b[H"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e := newEmuFeed(fuzzCols, fuzzRows)
		defer e.close()
		// Repeat short inputs to a whole chunk: a bomb is cheap to send
		// again and again.
		chunk := data
		if len(data) > 0 && len(data) < fuzzChunk {
			chunk = bytes.Repeat(data, fuzzChunk/len(data))
		}
		for i := 0; i < len(chunk); i += fuzzChunk {
			if took := e.write(chunk[i:min(len(chunk), i+fuzzChunk)]); took > MaxChunkCPU {
				t.Fatalf("a %d-byte chunk took %v, bound %v", fuzzChunk, took, MaxChunkCPU)
			}
		}
		if e.slow > MaxSliceCPU {
			t.Fatalf("a slice took %v, bound %v", e.slow, MaxSliceCPU)
		}
		if e.emu.Width() != fuzzCols || e.emu.Height() != fuzzRows {
			t.Fatalf("emulator resized to %dx%d", e.emu.Width(), e.emu.Height())
		}
	})
}
