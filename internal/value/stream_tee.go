package value

import "sync"

// TeeQueue bounds how many items a live tee fork may fall behind before
// later items for it are dropped (and reported by a {dropped: n} marker).
const TeeQueue = 64

// MaxTee bounds the number of forks one tee may create.
const MaxTee = 64

// Tee forks s into n streams. A bounded stream is collected once and every
// fork replays it exactly; a live stream is shared lazily: whichever fork
// pulls drives the upstream and queues a copy for each sibling.
func Tee(env Env, s *Stream, n int) ([]*Stream, error) {
	if s.Bounded {
		list, err := CollectStream(env, s)
		if err != nil {
			return nil, err
		}
		out := make([]*Stream, n)
		for i := range out {
			out[i] = StreamFromSlice(s.Label, list.Items)
		}
		return out, nil
	}
	src, err := s.Take()
	if err != nil {
		return nil, err
	}
	h := &teeHub{up: src, forks: make([]*teeFork, n), open: n}
	out := make([]*Stream, n)
	for i := range out {
		h.forks[i] = &teeFork{hub: h}
		out[i] = NewStream(s.Label, false, h.forks[i])
	}
	return out, nil
}

// teeHub is the shared upstream; its mutex serialises pulls.
type teeHub struct {
	mu    sync.Mutex
	up    Source
	forks []*teeFork
	ended bool
	err   error
	open  int
}

// teeFork is one consumer's view: a bounded queue and a drop count.
type teeFork struct {
	hub     *teeHub
	queue   []Value
	dropped int64
	closed  bool
}

func (f *teeFork) Next(env Env) (Value, bool, error) {
	h := f.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if v, ok := f.pop(); ok {
		return v, true, nil
	}
	if h.ended {
		return nil, false, h.err
	}
	v, ok, err := h.up.Next(env)
	if err != nil || !ok {
		h.ended, h.err = true, err
		return nil, false, err
	}
	for _, sib := range h.forks {
		if sib == f || sib.closed {
			continue
		}
		if len(sib.queue) >= TeeQueue {
			sib.dropped++
			continue
		}
		if sib.dropped > 0 {
			sib.queue = append(sib.queue, dropMarker(sib.dropped))
			sib.dropped = 0
		}
		sib.queue = append(sib.queue, v)
	}
	return v, true, nil
}

// dropMarker is the {dropped: n} record a lagging fork receives in order.
func dropMarker(n int64) Value {
	return NewRecord([]string{"dropped"}, []Value{Int(n)})
}

// pop returns the next queued item; a drained queue with drops owed yields
// the drop marker.
func (f *teeFork) pop() (Value, bool) {
	if len(f.queue) == 0 {
		if f.dropped > 0 {
			n := f.dropped
			f.dropped = 0
			return dropMarker(n), true
		}
		return nil, false
	}
	v := f.queue[0]
	f.queue[0] = nil
	f.queue = f.queue[1:]
	return v, true
}

func (f *teeFork) Close() {
	h := f.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if f.closed {
		return
	}
	f.closed, f.queue = true, nil
	h.open--
	if h.open == 0 {
		h.up.Close()
	}
}
