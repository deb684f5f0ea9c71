package value

import (
	"strings"
	"sync"
)

// A stream is a lazy, pull-based, single-consumption sequence. No stage runs
// until a sink pulls; every combinator takes its input's source (leaving the
// input consumed) and wraps it in a fresh Stream. Streams compare by
// identity.

// Source produces a stream's items on demand.
type Source interface {
	// Next blocks until the next item, the end (ok false) or a failure.
	// Sources that wait (timers, channels) must give up when env.Context()
	// is cancelled.
	Next(env Env) (v Value, ok bool, err error)
	// Close releases what the source holds (subscriptions, upstream
	// sources). It is safe to call more than once.
	Close()
}

// Stream is the stream value.
type Stream struct {
	Label string
	// Bounded is true when the stream is known to end; collecting an
	// unbounded stream is refused with stream_unbounded.
	Bounded bool

	mu  sync.Mutex
	src Source // nil once taken
}

// NewStream wraps src as a fresh, unconsumed stream.
func NewStream(label string, bounded bool, src Source) *Stream {
	return &Stream{Label: label, Bounded: bounded, src: src}
}

// Kind implements Value.
func (*Stream) Kind() Kind { return KStream }

// InlineString implements Inliner: a stream renders as a descriptor, never
// by driving it.
func (s *Stream) InlineString() string {
	var b strings.Builder
	b.WriteString("<stream ")
	b.WriteString(s.Label)
	if !s.Bounded {
		b.WriteString(" (live)")
	}
	b.WriteByte('>')
	return b.String()
}

// Take hands the stream's source to its one consumer. A second call fails
// with stream_consumed.
func (s *Stream) Take() (Source, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.src == nil {
		return nil, Errorf(CodeStreamConsumed, "this %s stream was already consumed", s.Label).
			WithHint("a stream is read once: use .tee(n) to fork it, or .collect() a bounded stream into a list")
	}
	src := s.src
	s.src = nil
	return src, nil
}

// Consumed reports whether the stream's source was already taken.
func (s *Stream) Consumed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src == nil
}

// StreamOf converts a finite value into a bounded stream: list items, table
// rows, range integers, or the lines of a str or bytes. ok is false for any
// other value.
func StreamOf(v Value) (*Stream, bool) {
	switch x := v.(type) {
	case *List:
		return NewStream("list", true, &sliceSource{items: x.Items}), true
	case *Table:
		return NewStream("table", true, &sliceSource{items: tableRows(x)}), true
	case Range:
		lo, hi, ok := RangeBounds(x)
		if !ok {
			hi = lo + RangeLen(x) // saturated; still ends
		}
		return NewStream("range", true, &rangeSource{next: lo, hi: hi}), true
	case Str:
		return NewStream("lines", true, &sliceSource{items: streamLines(string(x))}), true
	case Bytes:
		return NewStream("lines", true, &sliceSource{items: streamLines(lossy(string(x)))}), true
	}
	return nil, false
}

// streamLines splits text into lines without their terminators; a final
// newline does not start an empty line.
func streamLines(s string) []Value {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	parts := strings.Split(s, "\n")
	out := make([]Value, len(parts))
	for i, p := range parts {
		out[i] = Str(strings.TrimSuffix(p, "\r"))
	}
	return out
}

// StreamFromSlice is a bounded stream over items.
func StreamFromSlice(label string, items []Value) *Stream {
	return NewStream(label, true, &sliceSource{items: items})
}

// sliceSource yields a fixed slice.
type sliceSource struct {
	items []Value
	i     int
}

func (s *sliceSource) Next(Env) (Value, bool, error) {
	if s.i >= len(s.items) {
		return nil, false, nil
	}
	v := s.items[s.i]
	s.i++
	return v, true, nil
}

func (s *sliceSource) Close() { s.items = nil }

// rangeSource yields the integers [next, hi).
type rangeSource struct{ next, hi int64 }

func (r *rangeSource) Next(Env) (Value, bool, error) {
	if r.next >= r.hi {
		return nil, false, nil
	}
	v := Int(r.next)
	r.next++
	return v, true, nil
}

func (r *rangeSource) Close() { r.next = r.hi }

// maxCollect bounds how many items collecting one stream may hold.
const maxCollect = 1 << 24

// CollectStream drains a bounded stream into a list. An unbounded stream is
// refused before anything is pulled.
func CollectStream(env Env, s *Stream) (*List, error) {
	if !s.Bounded {
		return nil, Errorf(CodeStreamUnbounded, "cannot collect a live %s stream: it may never end", s.Label).
			WithHint("bound it first with .take(n), or drive it with .each(f)")
	}
	src, err := s.Take()
	if err != nil {
		return nil, err
	}
	defer src.Close()
	var items []Value
	var grow growReserve
	defer grow.release()
	for {
		v, ok, err := src.Next(env)
		if err != nil {
			return nil, err
		}
		if !ok {
			return &List{Items: items}, nil
		}
		if len(items) >= maxCollect {
			return nil, Errorf(CodeStreamUnbounded, "stream produced more than %d items while collecting", maxCollect).
				WithHint("bound it with .take(n)")
		}
		// Each item costs its slot, a boxed scalar, and while the slice
		// grows its old copy's slot too.
		if err := grow.need(env, int64(len(items)+1)*(2*slotBytes+wordBytes)); err != nil {
			return nil, err
		}
		items = append(items, v)
	}
}

// DriveStream pulls every item of s into f until the end, an error, or f
// returns stop.
func DriveStream(env Env, s *Stream, f func(Value) (stop bool, err error)) error {
	src, err := s.Take()
	if err != nil {
		return err
	}
	defer src.Close()
	for {
		if err := env.Context().Err(); err != nil {
			return Errorf(CodeCancelled, "stream cancelled: %v", err)
		}
		v, ok, err := src.Next(env)
		if err != nil || !ok {
			return err
		}
		if stop, err := f(v); err != nil || stop {
			return err
		}
	}
}
