package kernel

import (
	"container/list"
	"sync"
)

// MaxKernelTranscriptBytes bounds the approximate memory of the transcript
// values all sessions keep together. Past it the oldest value of any
// session is dropped first (its ref then answers UNKNOWN_REF, as after a
// session's own bound); each session's newest value is always kept.
const MaxKernelTranscriptBytes = 1 << 30

// budget is the kernel-wide account of transcript values, oldest first.
//
// Locking: a session calls into the budget while holding its own mutex
// (add, remove); the budget never takes a session's mutex while holding
// its own: evict picks victims under the budget's mutex and the sessions
// drop them after it is released.
type budget struct {
	mu     sync.Mutex
	limit  int
	bytes  int
	order  list.List                  // of *budgetEntry, oldest at the front
	newest map[*session]*list.Element // never chosen as a victim
}

type budgetEntry struct {
	sess *session
	n    int
	size int
}

func newBudget(limit int) *budget {
	return &budget{limit: limit, newest: map[*session]*list.Element{}}
}

// add accounts a value just stored as out:n of s and returns its element.
func (b *budget) add(s *session, n, size int) *list.Element {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bytes += size
	e := b.order.PushBack(&budgetEntry{sess: s, n: n, size: size})
	b.newest[s] = e
	return e
}

// remove forgets e (a value its session dropped); removing twice is a
// no-op.
func (b *budget) remove(e *list.Element) {
	if e == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.take(e)
}

// take removes e under b.mu, once.
func (b *budget) take(e *list.Element) {
	if be, ok := e.Value.(*budgetEntry); ok && be != nil {
		b.bytes -= be.size
		b.order.Remove(e)
		e.Value = nil
	}
}

// victims removes the oldest entries, other than any session's newest,
// until the total is within the limit, and returns them for their sessions
// to drop.
func (b *budget) victims() []*budgetEntry {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*budgetEntry
	for e := b.order.Front(); e != nil && b.bytes > b.limit; {
		next := e.Next()
		if be := e.Value.(*budgetEntry); b.newest[be.sess] != e {
			out = append(out, be)
			b.take(e)
		}
		e = next
	}
	return out
}

// total reports the bytes accounted (tests).
func (b *budget) total() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bytes
}

// forget drops the newest mark of s, a closing session whose values have
// all been removed, so the budget keeps nothing of it.
func (b *budget) forget(s *session) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.newest, s)
}

// sessions reports how many sessions the budget has a newest mark for
// (tests).
func (b *budget) sessions() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.newest)
}
