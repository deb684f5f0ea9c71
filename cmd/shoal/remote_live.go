package main

// Live output for `shoal --kernel`: each exec is sent watched
// (client.ExecWatch), so the output events of its task arrive while it
// runs and are printed as they come; the render event read after the
// answer then supplies only what the events did not (output printed
// faster than the kernel publishes it, or events not yet delivered when
// the exec ended).

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/shoalgo/shoal/client"
)

// liveOutput prints one exec's output events as they arrive, in output
// order: the kernel coalesces each stream apart, so a stdout chunk may
// arrive before the stderr chunk written just before it; a chunk past a
// gap waits (bounded by maxLiveHeld) for the one that fills it.
type liveOutput struct {
	w    io.Writer
	end  int64            // the output offset past the last byte printed
	held map[int64][]byte // chunks past a gap, by offset
	size int              // bytes in held
	// shown is what was printed, while it is at most maxLiveShown bytes
	// (nil past it): rest checks the render agrees with it.
	shown []byte
	long  bool // more than maxLiveShown was printed
}

// maxLiveHeld bounds the bytes liveOutput holds back waiting for a gap to
// fill (an event the client dropped never comes); past it the held chunks
// are printed in offset order and the gap is left to the render's rest.
const maxLiveHeld = 1 << 20

// maxLiveShown bounds the copy of what was printed live that rest
// compares the render's output with.
const maxLiveShown = 1 << 20

// event prints the output an event of the exec's task carries.
func (l *liveOutput) event(ev client.Event) {
	var o struct {
		Kind   string  `json:"kind"`
		Offset int64   `json:"offset"`
		Text   *string `json:"text"`
		Base64 *string `json:"base64"`
	}
	if json.Unmarshal(ev.Payload, &o) != nil || o.Kind != "output" {
		return
	}
	var b []byte
	switch {
	case o.Text != nil:
		b = []byte(*o.Text)
	case o.Base64 != nil:
		var err error
		if b, err = base64.StdEncoding.DecodeString(*o.Base64); err != nil {
			return
		}
	}
	if len(b) == 0 {
		return
	}
	l.take(o.Offset, b)
}

// take prints the chunk b at offset off when it continues what was
// printed (the part not printed yet, for a chunk that overlaps it), then
// any held chunk it lets follow; a chunk past a gap is held.
func (l *liveOutput) take(off int64, b []byte) {
	switch {
	case off+int64(len(b)) <= l.end:
		return // printed already
	case off > l.end:
		if l.held == nil {
			l.held = map[int64][]byte{}
		}
		if _, dup := l.held[off]; !dup {
			l.held[off] = b
			l.size += len(b)
		}
		if l.size > maxLiveHeld {
			l.flushHeld()
		}
		return
	}
	l.write(b[l.end-off:])
	for {
		next, ok := l.held[l.end]
		if !ok {
			break
		}
		delete(l.held, l.end)
		l.size -= len(next)
		l.write(next)
	}
}

// write prints b, next in output order.
func (l *liveOutput) write(b []byte) {
	_, _ = l.w.Write(b)
	l.end += int64(len(b))
	if !l.long && len(l.shown)+len(b) <= maxLiveShown {
		l.shown = append(l.shown, b...)
	} else {
		l.long, l.shown = true, nil
	}
}

// flushHeld prints every held chunk in offset order, past the gaps
// before them.
func (l *liveOutput) flushHeld() {
	offs := make([]int64, 0, len(l.held))
	for off := range l.held {
		offs = append(offs, off)
	}
	slices.Sort(offs)
	for _, off := range offs {
		b := l.held[off]
		if end := off + int64(len(b)); end > l.end {
			b = b[max(0, l.end-off):]
			l.end = end - int64(len(b)) // a gap before b stays unprinted
			l.write(b)
		}
	}
	l.held, l.size = nil, 0
}

// rest is what of the exec's kept output (the render event's, which
// starts at offset 0) was not printed live. The render joins the two
// streams as the kernel read them, which for a program writing both at
// the same moment may differ from the events' order: when what was
// printed is not the render's start, rest starts where they part, so
// nothing is lost (a few lines may show twice) and nothing is cut.
func (l *liveOutput) rest(output string) string {
	if l == nil || l.end == 0 {
		return output
	}
	if !l.long && int64(len(l.shown)) == l.end {
		common := 0
		for common < len(output) && common < len(l.shown) && output[common] == l.shown[common] {
			common++
		}
		if common < len(l.shown) { // they part before the end of what was printed
			if i := strings.LastIndexByte(output[:common], '\n'); i >= 0 {
				common = i + 1 // from the line where they part
			} else {
				common = 0
			}
			return output[common:]
		}
	}
	if int64(len(output)) <= l.end {
		return ""
	}
	return output[l.end:]
}

// printed is how much of the output was printed live.
func (l *liveOutput) printed() int64 {
	if l == nil {
		return 0
	}
	return l.end
}
