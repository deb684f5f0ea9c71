package value

import (
	"math"
	"strconv"
	"time"
)

// The lazy stream stages. Each wraps an upstream Source; closures run only
// when a sink pulls, on the sink's evaluator thread.

// Poller is implemented by sources that can say, without blocking, whether
// an item is ready (finite sources always are). take_until(stream) polls its
// signal through it.
type Poller interface {
	// Poll returns the next item when one is ready; ready is false when
	// the source would block. ok is false at the end.
	Poll(env Env) (v Value, ok, ready bool, err error)
}

func (s *sliceSource) Poll(env Env) (Value, bool, bool, error) {
	v, ok, err := s.Next(env)
	return v, ok, true, err
}

func (r *rangeSource) Poll(env Env) (Value, bool, bool, error) {
	v, ok, err := r.Next(env)
	return v, ok, true, err
}

// mapStage applies f to each item.
type mapStage struct {
	up Source
	f  Value
}

func (m *mapStage) Next(env Env) (Value, bool, error) {
	v, ok, err := m.up.Next(env)
	if err != nil || !ok {
		return nil, ok, err
	}
	r, err := env.Call(m.f, v)
	return r, err == nil, err
}

func (m *mapStage) Close() { m.up.Close() }

// whereStage keeps the items f accepts.
type whereStage struct {
	up   Source
	f    Value
	name string
}

func (w *whereStage) Next(env Env) (Value, bool, error) {
	for {
		v, ok, err := w.up.Next(env)
		if err != nil || !ok {
			return nil, ok, err
		}
		r, err := env.Call(w.f, v)
		if err != nil {
			return nil, false, err
		}
		keep, err := mCond(w.name, r)
		if err != nil {
			return nil, false, err
		}
		if keep {
			return v, true, nil
		}
	}
}

func (w *whereStage) Close() { w.up.Close() }

// scanStage emits each running accumulator.
type scanStage struct {
	up  Source
	acc Value
	f   Value
}

func (s *scanStage) Next(env Env) (Value, bool, error) {
	v, ok, err := s.up.Next(env)
	if err != nil || !ok {
		return nil, ok, err
	}
	acc, err := env.Call(s.f, s.acc, v)
	if err != nil {
		return nil, false, err
	}
	s.acc = acc
	return acc, true, nil
}

func (s *scanStage) Close() { s.up.Close() }

// flatMapStage drains each returned collection or stream before pulling
// the next outer item.
type flatMapStage struct {
	up  Source
	f   Value
	cur Source
}

func (s *flatMapStage) Next(env Env) (Value, bool, error) {
	for {
		if s.cur != nil {
			v, ok, err := s.cur.Next(env)
			if err != nil {
				return nil, false, err
			}
			if ok {
				return v, true, nil
			}
			s.cur.Close()
			s.cur = nil
		}
		v, ok, err := s.up.Next(env)
		if err != nil || !ok {
			return nil, ok, err
		}
		r, err := env.Call(s.f, v)
		if err != nil {
			return nil, false, err
		}
		inner, ok := r.(*Stream)
		if !ok {
			if inner, ok = StreamOf(r); !ok || r.Kind() == KStr || r.Kind() == KBytes {
				inner = StreamFromSlice("item", []Value{r})
			}
		}
		if s.cur, err = inner.Take(); err != nil {
			return nil, false, err
		}
	}
}

func (s *flatMapStage) Close() {
	if s.cur != nil {
		s.cur.Close()
	}
	s.up.Close()
}

// takeStage ends after n items; skipStage drops the first n.
type takeStage struct {
	up Source
	n  int
}

func (s *takeStage) Next(env Env) (Value, bool, error) {
	if s.n <= 0 {
		return nil, false, nil
	}
	v, ok, err := s.up.Next(env)
	if err != nil || !ok {
		return nil, ok, err
	}
	s.n--
	return v, true, nil
}

func (s *takeStage) Close() { s.up.Close() }

type skipStage struct {
	up Source
	n  int
}

func (s *skipStage) Next(env Env) (Value, bool, error) {
	for ; s.n > 0; s.n-- {
		_, ok, err := s.up.Next(env)
		if err != nil || !ok {
			return nil, ok, err
		}
	}
	return s.up.Next(env)
}

func (s *skipStage) Close() { s.up.Close() }

// untilStage ends at the first item pred accepts (not emitting it), or as
// soon as the signal source has produced an item.
type untilStage struct {
	up     Source
	pred   Value
	signal Source
	done   bool
}

func (s *untilStage) Next(env Env) (Value, bool, error) {
	if s.done {
		return nil, false, nil
	}
	var v Value
	var ok bool
	var err error
	if s.signal != nil {
		v, ok, err = s.pullOrSignal(env)
	} else {
		v, ok, err = s.up.Next(env)
	}
	if err != nil || !ok {
		return nil, ok, err
	}
	if s.pred != nil {
		r, err := env.Call(s.pred, v)
		if err != nil {
			return nil, false, err
		}
		stop, err := mCond("take_until", r)
		if err != nil {
			return nil, false, err
		}
		if stop {
			s.done = true
			return nil, false, nil
		}
	}
	return v, true, nil
}

// pullOrSignal pulls the next item unless the signal fires first. When
// both sides can be polled it alternates in PollStep steps, so a quiet
// primary cannot hide the signal; otherwise it checks the signal once and
// then blocks on the primary.
func (s *untilStage) pullOrSignal(env Env) (Value, bool, error) {
	sig, sigOK := s.signal.(Poller)
	up, upOK := s.up.(Poller)
	for {
		if sigOK {
			_, got, ready, err := sig.Poll(env)
			if err != nil {
				return nil, false, err
			}
			if ready && got {
				s.done = true
				return nil, false, nil
			}
		}
		if !upOK || !sigOK {
			return s.up.Next(env)
		}
		v, ok, ready, err := up.Poll(env)
		if err != nil || ready {
			return v, ok, err
		}
		if err := pollWait(env); err != nil {
			return nil, false, err
		}
	}
}

// PollStep is how long polling stages wait between polls.
const PollStep = 20 * time.Millisecond

// pollWait sleeps one PollStep, or fails when the evaluation is cancelled.
func pollWait(env Env) error {
	tm := time.NewTimer(PollStep)
	defer tm.Stop()
	var err error
	wait := func() {
		select {
		case <-tm.C:
		case <-env.Context().Done():
			err = Errorf(CodeCancelled, "stream cancelled: %v", env.Context().Err())
		}
	}
	if b, ok := env.(Blocker); ok {
		b.Block(wait)
	} else {
		wait()
	}
	return err
}

func (s *untilStage) Close() {
	if s.signal != nil {
		s.signal.Close()
	}
	s.up.Close()
}

// MaxDistinct bounds how many distinct items `distinct` remembers; a stream
// with more distinct items than that fails with stream_limit rather than
// growing without bound.
const MaxDistinct = 1 << 16

// dedupeStage drops adjacent duplicates, or (all) every duplicate. With
// all it remembers scalars in a map keyed by their equality class and other
// values in a list, MaxDistinct in total.
type dedupeStage struct {
	up     Source
	last   Value
	all    bool
	keys   map[string]struct{}
	others []Value
}

func (s *dedupeStage) Next(env Env) (Value, bool, error) {
	for {
		v, ok, err := s.up.Next(env)
		if err != nil || !ok {
			return nil, ok, err
		}
		if s.all {
			seen, err := s.remember(v)
			if err != nil {
				return nil, false, err
			}
			if seen {
				continue
			}
			return v, true, nil
		}
		if s.last != nil && Equal(s.last, v) {
			continue
		}
		s.last = v
		return v, true, nil
	}
}

func (s *dedupeStage) Close() { s.up.Close() }

// remember reports whether v was seen before, recording it if not.
func (s *dedupeStage) remember(v Value) (bool, error) {
	if k, ok := distinctKey(v); ok {
		if _, dup := s.keys[k]; dup {
			return true, nil
		}
		if len(s.keys)+len(s.others) >= MaxDistinct {
			return false, distinctLimit()
		}
		if s.keys == nil {
			s.keys = map[string]struct{}{}
		}
		s.keys[k] = struct{}{}
		return false, nil
	}
	if containsEqual(s.others, v) {
		return true, nil
	}
	if len(s.keys)+len(s.others) >= MaxDistinct {
		return false, distinctLimit()
	}
	s.others = append(s.others, v)
	return false, nil
}

func distinctLimit() error {
	return Errorf(CodeStreamLimit, "distinct remembers at most %d items", MaxDistinct).
		WithHint("use dedupe() to drop only adjacent repeats, or take(n) first")
}

// distinctKey is a map key for the scalar kinds whose equality it captures
// exactly (an integral float keys like the equal int); ok is false for
// kinds compared structurally.
func distinctKey(v Value) (string, bool) {
	switch x := v.(type) {
	case Null:
		return "z", true
	case Bool:
		return "b" + strconv.FormatBool(bool(x)), true
	case Int:
		return "i" + strconv.FormatInt(int64(x), 10), true
	case Float:
		f := float64(x)
		if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			return "i" + strconv.FormatInt(int64(f), 10), true
		}
		if f != f {
			return "", false // NaN equals nothing; keep it out of the map
		}
		return "f" + strconv.FormatFloat(f, 'g', -1, 64), true
	case Str:
		return "s" + string(x), true
	case Path:
		return "s" + string(x), true // a path equals the string of its text
	case Size:
		return "S" + strconv.FormatInt(int64(x), 10), true
	case Duration:
		return "d" + strconv.FormatInt(int64(x), 10), true
	}
	return "", false
}

func containsEqual(items []Value, v Value) bool {
	for _, it := range items {
		if Equal(it, v) {
			return true
		}
	}
	return false
}

// throttleStage emits an item, then drops items for the interval.
type throttleStage struct {
	up   Source
	d    time.Duration
	last time.Time
	any  bool
}

func (s *throttleStage) Next(env Env) (Value, bool, error) {
	for {
		v, ok, err := s.up.Next(env)
		if err != nil || !ok {
			return nil, ok, err
		}
		now := env.Now()
		if s.any && now.Sub(s.last) < s.d {
			continue
		}
		s.any, s.last = true, now
		return v, true, nil
	}
}

func (s *throttleStage) Close() { s.up.Close() }

// debounceStage emits an item once the next one arrives at least d later,
// and the last pending item at the end. In the synchronous pull model the
// quiet period is measured between arrivals.
type debounceStage struct {
	up      Source
	d       time.Duration
	pending Value
	at      time.Time
	ended   bool
}

func (s *debounceStage) Next(env Env) (Value, bool, error) {
	for !s.ended {
		v, ok, err := s.up.Next(env)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			s.ended = true
			break
		}
		now := env.Now()
		prev, prevAt := s.pending, s.at
		s.pending, s.at = v, now
		if prev != nil && now.Sub(prevAt) >= s.d {
			return prev, true, nil
		}
	}
	if s.pending != nil {
		v := s.pending
		s.pending = nil
		return v, true, nil
	}
	return nil, false, nil
}

func (s *debounceStage) Close() { s.up.Close() }

// windowStage emits sliding windows: of n items once full, or of the
// items that arrived within d of the newest.
type windowStage struct {
	up  Source
	n   int
	d   time.Duration
	buf []Value
	ts  []time.Time
}

func (s *windowStage) Next(env Env) (Value, bool, error) {
	for {
		v, ok, err := s.up.Next(env)
		if err != nil || !ok {
			return nil, ok, err
		}
		if s.d > 0 {
			now := env.Now()
			s.buf, s.ts = append(s.buf, v), append(s.ts, now)
			i := 0
			for i < len(s.ts) && now.Sub(s.ts[i]) > s.d {
				i++
			}
			s.buf, s.ts = s.buf[i:], s.ts[i:]
			return &List{Items: append([]Value(nil), s.buf...)}, true, nil
		}
		s.buf = append(s.buf, v)
		if len(s.buf) > s.n {
			s.buf = s.buf[1:]
		}
		if len(s.buf) == s.n {
			return &List{Items: append([]Value(nil), s.buf...)}, true, nil
		}
	}
}

func (s *windowStage) Close() { s.up.Close() }

// enumerateStage pairs items with their zero-based index.
type enumerateStage struct {
	up Source
	i  int64
}

func (s *enumerateStage) Next(env Env) (Value, bool, error) {
	v, ok, err := s.up.Next(env)
	if err != nil || !ok {
		return nil, ok, err
	}
	p := &List{Items: []Value{Int(s.i), v}}
	s.i++
	return p, true, nil
}

func (s *enumerateStage) Close() { s.up.Close() }

// mergeStage alternates between two sources until both end. A side that
// blocks holds the other back: merge is fair, not latency-optimal.
type mergeStage struct {
	a, b       Source
	aEnd, bEnd bool
	turnB      bool
}

func (s *mergeStage) Next(env Env) (Value, bool, error) {
	pa, okA := s.a.(Poller)
	pb, okB := s.b.(Poller)
	if okA && okB {
		return s.poll(env, pa, pb)
	}
	for !(s.aEnd && s.bEnd) {
		useB := (s.turnB && !s.bEnd) || s.aEnd
		s.turnB = !s.turnB
		src := s.a
		if useB {
			src = s.b
		}
		v, ok, err := src.Next(env)
		if err != nil {
			return nil, false, err
		}
		if ok {
			return v, true, nil
		}
		if useB {
			s.bEnd = true
		} else {
			s.aEnd = true
		}
	}
	return nil, false, nil
}

// poll interleaves two pollable sources by readiness, waiting PollStep
// when neither has an item.
func (s *mergeStage) poll(env Env, pa, pb Poller) (Value, bool, error) {
	for !(s.aEnd && s.bEnd) {
		idle := true
		for i := 0; i < 2; i++ {
			useB := s.turnB
			s.turnB = !s.turnB
			if (useB && s.bEnd) || (!useB && s.aEnd) {
				continue
			}
			p := pa
			if useB {
				p = pb
			}
			v, ok, ready, err := p.Poll(env)
			if err != nil {
				return nil, false, err
			}
			if !ready {
				continue
			}
			idle = false
			if ok {
				return v, true, nil
			}
			if useB {
				s.bEnd = true
			} else {
				s.aEnd = true
			}
		}
		if idle {
			if err := pollWait(env); err != nil {
				return nil, false, err
			}
		}
	}
	return nil, false, nil
}

func (s *mergeStage) Close() { s.a.Close(); s.b.Close() }

// zipStage pairs items until either side ends.
type zipStage struct{ a, b Source }

func (s *zipStage) Next(env Env) (Value, bool, error) {
	x, ok, err := s.a.Next(env)
	if err != nil || !ok {
		return nil, ok, err
	}
	y, ok, err := s.b.Next(env)
	if err != nil || !ok {
		return nil, ok, err
	}
	return &List{Items: []Value{x, y}}, true, nil
}

func (s *zipStage) Close() { s.a.Close(); s.b.Close() }
