package events

import "slices"

// record is one retained event and, on a global channel, who may see it.
type record struct {
	ev  Event
	aud *Audience
	// origin is the scope the event was published from (on a scoped
	// stream, the stream's own), for View.Visible.
	origin Scope
	size   int64  // bytes charged: payload plus RecordOverhead
	order  uint64 // Bus.tick at publish: orders events across streams
	// forgotten marks, on a global stream, an event of a scope forgotten
	// since (ForgetScope): a renumbering view no longer shows it, so a
	// later session of the same name, numbered afresh, never meets it.
	forgotten bool
}

// stream is one channel in one scope (or the single stream of a global
// channel): its sequence, the ring of events it retains (at most
// RingSize, within its byte budget) and its live subscriptions. Every
// field is guarded by Bus.mu.
type stream struct {
	channel string
	global  bool
	scope   *scopeState

	seq     uint64
	ring    []record // circular: n records from head
	head, n int
	bytes   int64 // retained
	subs    []*Subscription
	filter  Filter // global channels only
	lastUse uint64 // Bus.tick at the last publish or subscribe
	// own numbers, on a global stream, the events each origin scope
	// published without a ScopeSeq of their own (see ScopeRenumber):
	// its last. An entry goes with its scope (ForgetScope).
	own map[Scope]uint64

	// skipped is set while the stream retains nothing because its last
	// events were skipped unwatched (SkipUnwatched): seq is then the
	// store's last, and a read after it needs no query of the store.
	skipped bool

	// older and newer link the scope's counted streams in lastUse order
	// (scopeState.lruOldest first), so finding the idlest is not a scan.
	older, newer *stream
}

// push appends r, growing the ring as needed; the caller trims it.
func (s *stream) push(r record) {
	s.skipped = false
	if s.n == len(s.ring) {
		grown := make([]record, min(max(2, 2*len(s.ring)), RingSize+1)) // a task's stream holds two
		for i := range s.n {
			grown[i] = *s.at(i)
		}
		s.ring, s.head = grown, 0
	}
	i := s.head + s.n
	if i >= len(s.ring) {
		i -= len(s.ring)
	}
	s.ring[i] = r
	s.n++
}

// pop removes and returns the oldest record; the caller checked n > 0.
func (s *stream) pop() record {
	r := s.ring[s.head]
	s.ring[s.head] = record{}
	s.head++
	if s.head == len(s.ring) {
		s.head = 0
	}
	s.n--
	if s.n == 0 {
		s.head = 0
	}
	if len(s.ring) > 64 && s.n < len(s.ring)/4 {
		s.shrink()
	}
	return r
}

// shrink halves a mostly empty ring so dropped events do not leave a
// large array behind.
func (s *stream) shrink() {
	small := make([]record, len(s.ring)/2)
	for i := range s.n {
		small[i] = *s.at(i)
	}
	s.ring, s.head = small, 0
}

// clear drops everything the stream retains (it is being forgotten).
func (s *stream) clear() {
	s.ring, s.head, s.n, s.bytes = nil, 0, 0, 0
}

// at returns the i-th oldest retained record.
func (s *stream) at(i int) *record {
	i += s.head
	if i >= len(s.ring) {
		i -= len(s.ring)
	}
	return &s.ring[i]
}

// retains reports whether the event numbered seq is still retained.
func (s *stream) retains(seq uint64) bool {
	i := s.search(seq)
	return i < s.n && s.at(i).ev.Seq == seq
}

// search returns the index of the oldest retained record with
// seq >= seq (n when there is none); retained seqs only grow.
func (s *stream) search(seq uint64) int {
	lo, hi := 0, s.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.at(m).ev.Seq < seq {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// visible reports whether viewer may see r. Scoped streams are private to
// their scope, so everything in them is visible to their readers.
func (s *stream) visible(viewer Scope, r *record) bool {
	if !s.global {
		return true
	}
	if r.aud != nil && !r.aud.Includes(viewer) {
		return false
	}
	return s.filter == nil || s.filter(viewer, r.ev)
}

// collect returns the newest limit events visible to viewer with
// seq > since, oldest first, narrowed by vis (nil: no narrowing) and, for
// a renumbering view (own), without events of forgotten scopes. The
// caller passes limit >= 1.
func (s *stream) collect(viewer Scope, since uint64, limit int, vis func(Scope) bool, own bool) []Event {
	if since >= s.seq || s.n == 0 {
		return []Event{}
	}
	first := s.search(since + 1)
	if !s.global && vis == nil { // every record is visible: copy the newest run
		start := max(first, s.n-limit)
		out := make([]Event, s.n-start)
		for i := range out {
			out[i] = s.at(start + i).ev
		}
		return out
	}
	out := make([]Event, 0, min(s.n-first, limit))
	for i := s.n - 1; i >= first && len(out) < limit; i-- {
		if r := s.at(i); s.visible(viewer, r) && (vis == nil || vis(r.origin)) && !(own && r.forgotten) {
			out = append(out, r.ev)
		}
	}
	slices.Reverse(out)
	return out
}

// oldestSeq is the seq of the oldest retained event, 0 when none is.
func (s *stream) oldestSeq() uint64 {
	if s.n == 0 {
		return 0
	}
	return s.at(0).ev.Seq
}

// removeSub forgets sub.
func (s *stream) removeSub(sub *Subscription) {
	if i := slices.Index(s.subs, sub); i >= 0 {
		last := len(s.subs) - 1
		s.subs[i] = s.subs[last]
		s.subs[last] = nil
		s.subs = s.subs[:last]
	}
}
