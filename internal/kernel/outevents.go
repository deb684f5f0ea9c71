package kernel

import (
	"encoding/base64"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/proto"
)

// Output events: what a task prints is published on its channel task.N
// as it is written, at most one event per stream per OutputEventEvery,
// each chunk at most OutputEventBytes; a task holds at most
// OutputEventPending bytes (in at most outputEventRuns pieces) waiting
// for their event. What does not fit is left out of the events (their
// offsets then skip it) and stays readable through task.output.
const (
	OutputEventEvery   = 50 * time.Millisecond
	OutputEventBytes   = 32 << 10
	OutputEventPending = 128 << 10
	outputEventRuns    = 64
)

// The streams an output event names.
const (
	streamStdout = iota
	streamStderr
)

var streamNames = [2]string{"stdout", "stderr"}

// outRun is output waiting for its event: bytes of one stream from off.
type outRun struct {
	stream int
	off    int64
	b      []byte
}

// outEmitter coalesces one task's output into events.
type outEmitter struct {
	s       *Server
	scope   events.Scope
	channel string

	mu     sync.Mutex
	runs   []outRun
	pend   int
	last   [2]time.Time
	timer  *time.Timer
	armed  bool
	closed bool
}

func newOutEmitter(s *Server, scope events.Scope, channel string) *outEmitter {
	e := &outEmitter{s: s, scope: scope, channel: channel}
	e.timer = time.AfterFunc(time.Hour, e.tick)
	e.timer.Stop()
	return e
}

// add queues p, written to stream at offset off, for an event.
func (e *outEmitter) add(stream int, off int64, p []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	if room := OutputEventPending - e.pend; len(p) > room {
		p = p[:max(room, 0)]
	}
	if len(p) == 0 {
		return
	}
	if n := len(e.runs); n > 0 && e.runs[n-1].stream == stream && e.runs[n-1].off+int64(len(e.runs[n-1].b)) == off {
		e.runs[n-1].b = append(e.runs[n-1].b, p...)
	} else if n < outputEventRuns {
		e.runs = append(e.runs, outRun{stream: stream, off: off, b: append([]byte(nil), p...)})
	} else {
		return
	}
	e.pend += len(p)
	if !e.armed {
		e.armed = true
		e.timer.Reset(max(time.Until(e.last[stream].Add(OutputEventEvery)), 0))
	}
}

// tick publishes, for each stream allowed one now, its oldest waiting
// output, and re-arms while output waits.
func (e *outEmitter) tick() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.armed = false
	if e.closed {
		return
	}
	now := time.Now()
	for st := range 2 {
		if now.Sub(e.last[st]) < OutputEventEvery {
			continue
		}
		for i := range e.runs {
			if e.runs[i].stream == st {
				e.emitLocked(i, OutputEventBytes, false)
				e.last[st] = now
				break
			}
		}
	}
	if len(e.runs) == 0 {
		return
	}
	wait := OutputEventEvery
	for _, r := range e.runs {
		wait = min(wait, max(e.last[r.stream].Add(OutputEventEvery).Sub(now), 0))
	}
	e.armed = true
	e.timer.Reset(wait)
}

// emitLocked publishes up to n bytes of run i and removes them. A chunk
// ending inside a character keeps that character's bytes for the next
// event unless final.
func (e *outEmitter) emitLocked(i, n int, final bool) {
	r := &e.runs[i]
	chunk := r.b[:min(n, len(r.b))]
	if !final && !utf8.Valid(chunk) {
		if k := incompleteTail(chunk); k > 0 && k < len(chunk) && utf8.Valid(chunk[:len(chunk)-k]) {
			chunk = chunk[:len(chunk)-k]
		}
	}
	e.s.publishJSON(e.scope, e.channel, outputChunkEvent{stream: r.stream, off: r.off, b: chunk})
	e.pend -= len(chunk)
	r.off += int64(len(chunk))
	r.b = r.b[len(chunk):]
	if len(r.b) == 0 {
		e.runs = append(e.runs[:i], e.runs[i+1:]...)
	}
}

// close publishes everything still waiting and stops the events: the
// task's output has ended.
func (e *outEmitter) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.closed = true
	e.timer.Stop()
	for len(e.runs) > 0 {
		e.emitLocked(0, OutputEventBytes, true)
	}
}

// incompleteTail is the length of the character b's last bytes begin
// but do not finish, 0 when none.
func incompleteTail(b []byte) int {
	for k := 1; k <= min(utf8.UTFMax-1, len(b)); k++ {
		c := b[len(b)-k]
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}

// outputChunkEvent is an output event's payload (proto.TaskOutputEvent),
// encoded by hand.
type outputChunkEvent struct {
	stream int
	off    int64
	b      []byte
}

// AppendJSON appends the event's JSON encoding to b.
func (o outputChunkEvent) AppendJSON(b []byte) []byte {
	b = append(b, `{"kind":"output","stream":"`...)
	b = append(b, streamNames[o.stream]...)
	b = append(b, `","offset":`...)
	b = strconv.AppendInt(b, o.off, 10)
	if utf8.Valid(o.b) {
		b = append(b, `,"text":`...)
		b = proto.AppendString(b, string(o.b))
	} else {
		b = append(b, `,"base64":"`...)
		b = base64.StdEncoding.AppendEncode(b, o.b)
		b = append(b, '"')
	}
	return append(b, '}')
}
