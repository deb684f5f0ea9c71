package value

import (
	"sync"
	"unsafe"
)

// Memory footprints: how many bytes a value keeps alive, for the budgets
// that bound what a session retains (the evaluator's memory budget, the
// kernel's transcript budget). The figures are estimates of the Go heap
// the value holds: string bytes and headers, slice backing arrays (cap, not
// len), boxed scalars. They never undercount what a value reaches, apart
// from memory that is not itself a value (compiled regexes are costed by
// their source, a closure's code is shared with its syntax tree).

// Holder is implemented by value types defined outside this package that
// keep other values alive, such as a closure and the variables it captured.
// A Holder must be a pointer type, so the Sizer can recognise it when it
// meets it again.
type Holder interface {
	Value
	// FootprintOwn is the memory the holder itself takes.
	FootprintOwn() int64
	// FootprintHeld calls yield with each value the holder keeps alive
	// (which may be further Holders).
	FootprintHeld(yield func(Value))
}

// Sizes of the runtime structures values are made of.
const (
	slotBytes   = 16 // one Value in a slice or field: an interface
	headerBytes = 16 // a boxed string header
	wordBytes   = 8  // a boxed scalar
)

// OwnSize is the memory v takes itself, not counting the values it refers
// to: a string's bytes, a list's backing array, a table's columns, an
// outcome's header (its captured stdout and stderr are counted as held
// byte strings, see Sizer).
func OwnSize(v Value) int64 {
	switch x := v.(type) {
	case nil, Null, Bool:
		return 0
	case Int, Float, Size, Duration, Time:
		return wordBytes
	case Str:
		return headerBytes + int64(len(x))
	case Bytes:
		return headerBytes + int64(len(x))
	case Path:
		return headerBytes + int64(len(x))
	case DateTime:
		return 24
	case Range:
		return 24
	case *List:
		return 24 + slotBytes*int64(cap(x.Items))
	case *Record:
		n := int64(48 + slotBytes*cap(x.keys) + slotBytes*cap(x.vals))
		for _, k := range x.keys {
			n += int64(len(k))
		}
		return n
	case *Table:
		n := int64(56 + slotBytes*cap(x.Cols) + 24*cap(x.Data))
		for _, c := range x.Cols {
			n += int64(len(c))
		}
		for _, col := range x.Data {
			n += slotBytes * int64(cap(col))
		}
		return n
	case *Outcome:
		n := int64(160 + len(x.Cmd) + len(x.Signal) + 24*cap(x.Argv))
		for _, a := range x.Argv {
			n += int64(len(a))
		}
		return n
	case *Error:
		return int64(128 + len(x.Code) + len(x.Msg) + len(x.Hint))
	case *Glob:
		return 40 + int64(len(x.Pattern))
	case *Regex:
		// The compiled program is not visible; a few words per source
		// byte is what regexp typically takes.
		return 256 + 32*int64(len(x.Source))
	case *Secret:
		return 48 + int64(len(x.Name)+len(x.value))
	case Holder:
		return x.FootprintOwn()
	}
	return 64
}

// sizerSlots is the size of the Sizer's cache of values already counted.
const sizerSlots = 1024

// cacheMin is the shortest string the Sizer remembers: shorter ones cost
// less to count again than to look up.
const cacheMin = 64

type sizerSlot struct {
	p   uintptr
	n   int // string length (0 for containers)
	gen uint32
}

// Sizer measures what values keep alive, iteratively, so a value of any
// depth is measured without recursion (its explicit stack holds one frame
// per level of nesting). A subvalue met again within one measurement (the
// same list, record, table, holder or string data) is counted once when a
// small direct-mapped cache still remembers it; a miss only counts it
// again, so the estimate may run high but never low. The zero value is
// ready to use; a Sizer is not safe for concurrent use.
type Sizer struct {
	frames []frame
	seen   [sizerSlots]sizerSlot
	gen    uint32
	// holders are the Holders met in this measurement, remembered exactly:
	// they are mutable (a closure's captured variables), so they may form
	// cycles, which the lossy cache alone could walk forever.
	holders map[uintptr]struct{}
	// Split receives the values Measure split off (see Measure).
	Split []Value
	// Counted, when set, reports a container below the measured value
	// that is accounted for elsewhere (the evaluator's meter tracks it on
	// its own): Measure counts the slot that refers to it and does not
	// descend. Without it, a value wrapping a tracked one (x = [x] in a
	// loop) would be charged again for everything below.
	Counted func(Value) bool
	// NodeLimit, when positive, stops a measurement after it has entered
	// that many containers, setting Truncated: the evaluator then tracks
	// the value on its own rather than walk a long chain of small
	// containers again for every wrapper added to it.
	NodeLimit int
	// Truncated reports that the last Measure stopped at NodeLimit.
	Truncated bool
	entered   int
}

// frame is one container being walked: its values from index i on, and
// for a table the columns after col.
type frame struct {
	items []Value
	i     int
	tab   *Table
	col   int
}

// Measure returns the bytes v keeps alive: its own memory and that of
// everything it reaches. It stops as soon as the count passes limit (> 0),
// returning a count above limit; limit <= 0 measures everything.
//
// When splitAt is positive, every value below v whose OwnSize is at least
// splitAt is appended to s.Split instead of being counted or descended
// into: the evaluator charges such values on their own (see
// internal/eval). Measure does not clear s.Split.
func (s *Sizer) Measure(v Value, limit, splitAt int64) int64 {
	s.gen++
	if s.gen == 0 {
		s.seen = [sizerSlots]sizerSlot{}
		s.gen = 1
	}
	clear(s.holders)
	s.entered, s.Truncated = 0, false
	total := OwnSize(v)
	if _, ok := v.(Holder); ok {
		s.metHolder(v)
	} else {
		s.remember(v)
	}
	s.enter(v, &total, splitAt)
	for len(s.frames) > 0 && (limit <= 0 || total <= limit) {
		if s.NodeLimit > 0 && s.entered > s.NodeLimit {
			s.Truncated = true
			break
		}
		f := &s.frames[len(s.frames)-1]
		if f.i >= len(f.items) {
			if f.tab != nil && f.col+1 < len(f.tab.Data) {
				f.col++
				f.items, f.i = f.tab.Data[f.col], 0
				continue
			}
			s.frames[len(s.frames)-1] = frame{}
			s.frames = s.frames[:len(s.frames)-1]
			continue
		}
		var inner Value // a container to descend into next
		items, i := f.items, f.i
		for i < len(items) && inner == nil {
			it := items[i]
			i++
			switch x := it.(type) {
			case Int, Size, Float, Duration, Time:
				total += wordBytes
			case nil, Null, Bool:
			case Str:
				if len(x) < cacheMin {
					total += headerBytes + int64(len(x))
				} else {
					s.text(it, string(x), &total, splitAt)
				}
			default:
				inner = s.item(it, &total, splitAt)
			}
		}
		f.i = i
		if inner != nil {
			s.enter(inner, &total, splitAt)
		}
	}
	for i := range s.frames {
		s.frames[i] = frame{}
	}
	s.frames = s.frames[:0]
	return total
}

// enter pushes the frame that walks x's values; leaves that are not values
// of a container (captured output) are counted at once.
func (s *Sizer) enter(x Value, total *int64, splitAt int64) {
	s.entered++
	switch c := x.(type) {
	case *List:
		s.frames = append(s.frames, frame{items: c.Items})
	case *Record:
		s.frames = append(s.frames, frame{items: c.vals})
	case *Table:
		if len(c.Data) > 0 {
			s.frames = append(s.frames, frame{items: c.Data[0], tab: c})
		}
	case *Outcome:
		s.bytes(c.Stdout, total, splitAt)
		s.bytes(c.Stderr, total, splitAt)
		if c.Out != nil {
			s.frames = append(s.frames, frame{items: []Value{c.Out}})
		}
	case *Error:
		var kids []Value
		if c.Status != nil {
			kids = append(kids, c.Status)
		}
		if c.Stderr != nil {
			kids = append(kids, c.Stderr)
		}
		if kids != nil {
			s.frames = append(s.frames, frame{items: kids})
		}
	case Holder:
		var kids []Value
		c.FootprintHeld(func(v Value) { kids = append(kids, v) })
		if kids != nil {
			s.frames = append(s.frames, frame{items: kids})
		}
	}
}

// item counts one referenced value that is not a short string or a
// scalar; it returns the value when it is a container to descend into.
func (s *Sizer) item(v Value, total *int64, splitAt int64) Value {
	switch x := v.(type) {
	case nil, Null, Bool:
		return nil
	case Int, Float, Size, Duration, Time:
		*total += wordBytes
		return nil
	case Str:
		s.text(v, string(x), total, splitAt)
		return nil
	case Bytes:
		s.text(v, string(x), total, splitAt)
		return nil
	case Path:
		s.text(v, string(x), total, splitAt)
		return nil
	case *List, *Record, *Table, *Outcome, *Error, Holder:
	default:
		*total += OwnSize(v)
		return nil
	}
	own := OwnSize(v)
	if splitAt > 0 && own >= splitAt {
		s.Split = append(s.Split, v)
		return nil
	}
	if s.Counted != nil && s.Counted(v) {
		return nil
	}
	if _, ok := v.(Holder); ok {
		if s.metHolder(v) {
			return nil
		}
	} else if s.remember(v) {
		return nil
	}
	*total += own
	return v
}

// metHolder records holder v; it reports whether it was already met.
func (s *Sizer) metHolder(v Value) bool {
	if s.holders == nil {
		s.holders = map[uintptr]struct{}{}
	}
	p := dataPointer(v)
	if _, met := s.holders[p]; met {
		return true
	}
	s.holders[p] = struct{}{}
	return false
}

// text counts a string value: split off when large, once when cached.
func (s *Sizer) text(v Value, str string, total *int64, splitAt int64) {
	n := int64(headerBytes + len(str))
	if splitAt > 0 && n-headerBytes >= splitAt {
		s.Split = append(s.Split, v)
		return
	}
	if len(str) >= cacheMin && s.rememberText(str) {
		return
	}
	*total += n
}

// bytes counts a captured output buffer as the Bytes value it becomes.
func (s *Sizer) bytes(b []byte, total *int64, splitAt int64) {
	if len(b) == 0 {
		return
	}
	if splitAt > 0 && int64(cap(b)) >= splitAt {
		s.Split = append(s.Split, BytesAlias(b))
		return
	}
	if len(b) >= cacheMin && s.rememberText(string(BytesAlias(b))) {
		return
	}
	*total += int64(headerBytes + cap(b))
}

// BytesAlias is b as a Bytes value sharing its memory. The caller
// guarantees b is never modified again (captured output, once the process
// has exited, is not).
func BytesAlias(b []byte) Bytes {
	if len(b) == 0 {
		return ""
	}
	return Bytes(unsafe.String(unsafe.SliceData(b), len(b)))
}

// remember records container v as counted; it reports whether it already
// was.
func (s *Sizer) remember(v Value) bool {
	p := dataPointer(v)
	if p == 0 {
		return false
	}
	slot := &s.seen[slotOf(p)]
	if slot.gen == s.gen && slot.p == p && slot.n == 0 {
		return true
	}
	*slot = sizerSlot{p: p, gen: s.gen}
	return false
}

// rememberText records string data as counted; it reports whether the
// same data, at least as long, already was.
func (s *Sizer) rememberText(str string) bool {
	p := uintptr(unsafe.Pointer(unsafe.StringData(str)))
	slot := &s.seen[slotOf(p)]
	if slot.gen == s.gen && slot.p == p && slot.n >= len(str) {
		return true
	}
	*slot = sizerSlot{p: p, n: len(str), gen: s.gen}
	return false
}

func slotOf(p uintptr) uintptr {
	return (uintptr(uint64(p>>4)*0x9e3779b97f4a7c15) >> 54) % sizerSlots
}

// dataPointer is the pointer a pointer-shaped value holds, 0 for others.
func dataPointer(v Value) uintptr {
	switch v.(type) {
	case *List, *Record, *Table, *Outcome, *Error, Holder:
		return (*[2]uintptr)(unsafe.Pointer(&v))[1]
	}
	return 0
}

var sizers = sync.Pool{New: func() any { return new(Sizer) }}

// GetSizer returns a Sizer from a shared pool; PutSizer returns it.
func GetSizer() *Sizer { return sizers.Get().(*Sizer) }

// PutSizer returns s to the pool GetSizer draws from.
func PutSizer(s *Sizer) {
	clear(s.Split)
	s.Split = s.Split[:0]
	s.Counted, s.NodeLimit, s.Truncated = nil, 0, false
	sizers.Put(s)
}

// Footprint is the bytes v keeps alive (see Sizer.Measure), measured with
// a pooled Sizer; it stops once past limit (> 0).
func Footprint(v Value, limit int64) int64 {
	s := GetSizer()
	n := s.Measure(v, limit, 0)
	PutSizer(s)
	return n
}
