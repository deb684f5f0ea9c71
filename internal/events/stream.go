package events

import (
	"slices"
	"sync"
)

// record is one retained event and, on a global channel, who may see it.
type record struct {
	ev  Event
	aud *Audience
}

// stream is one channel in one scope (or the single stream of a global
// channel): its sequence, its ring of the newest RingSize events and its
// live subscriptions. Lock order: Bus.mu, then stream.mu, then
// Subscription.mu.
type stream struct {
	channel string
	global  bool

	mu      sync.Mutex
	seq     uint64
	ring    []record // grows to RingSize, then wraps at head
	head    int      // index of the oldest record once the ring is full
	subs    []*Subscription
	filter  Filter // global channels only
	lastUse uint64 // Bus.tick at the last publish or subscribe
	dead    bool   // forgotten by the Bus; callers look the stream up again
}

// add retains r, evicting the oldest record when the ring is full.
func (s *stream) add(r record) {
	if len(s.ring) < RingSize {
		s.ring = append(s.ring, r)
		return
	}
	s.ring[s.head] = r
	s.head++
	if s.head == RingSize {
		s.head = 0
	}
}

// at returns the i-th oldest retained record.
func (s *stream) at(i int) *record {
	i += s.head
	if i >= len(s.ring) {
		i -= len(s.ring)
	}
	return &s.ring[i]
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
// seq > since, oldest first. The caller holds s.mu and passes limit >= 1.
func (s *stream) collect(viewer Scope, since uint64, limit int) []Event {
	if since >= s.seq || len(s.ring) == 0 {
		return []Event{}
	}
	// Retained seqs are contiguous, so this bounds the matches exactly
	// for scoped streams and from above for global ones.
	n := int(min(uint64(len(s.ring)), s.seq-since, uint64(limit)))
	out := make([]Event, n)
	j := n // fill from the back: newest first, oldest ends up first
	for i := len(s.ring) - 1; i >= 0 && j > 0; i-- {
		r := s.at(i)
		if r.ev.Seq <= since {
			break
		}
		if s.visible(viewer, r) {
			j--
			out[j] = r.ev
		}
	}
	return out[j:]
}

// removeSub forgets sub; the caller holds s.mu.
func (s *stream) removeSub(sub *Subscription) {
	if i := slices.Index(s.subs, sub); i >= 0 {
		last := len(s.subs) - 1
		s.subs[i] = s.subs[last]
		s.subs[last] = nil
		s.subs = s.subs[:last]
	}
}
