package budget

import (
	"slices"
	"sync"
)

// Pools: flat byte budgets shared fairly by holders that can be evicted
// (see the package doc). Each consumer (a connection's read buffer, its
// outbound queue) takes a Holder and charges the bytes it keeps with Grow,
// returning them with Shrink. Evicted holders' accounts are emptied at
// once and their evict callbacks run, each on its own goroutine, so that
// their owners can close them.

// Pool is one byte budget shared by its holders. It is safe for concurrent
// use.
type Pool struct {
	name  string
	limit int64

	mu      sync.Mutex
	used    int64
	holding map[*Holder]struct{} // holders with held > 0
}

// NewPool returns an empty pool named name (the budget named in errors)
// of limit bytes; a limit below 1 is taken as 1.
func NewPool(name string, limit int64) *Pool {
	return &Pool{name: name, limit: max(limit, 1), holding: map[*Holder]struct{}{}}
}

// Name returns the budget's name.
func (p *Pool) Name() string { return p.name }

// Limit returns the budget in bytes.
func (p *Pool) Limit() int64 { return p.limit }

// Used returns the bytes currently charged.
func (p *Pool) Used() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}

// Holders returns how many holders hold something (tests, diagnostics).
func (p *Pool) Holders() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.holding)
}

// Holder returns a new, empty account in p. evict is called (on its own
// goroutine, at most once) when the holder is evicted to make room for
// another; with a nil evict the holder is never evicted, only refused.
func (p *Pool) Holder(evict func()) *Holder {
	return &Holder{p: p, evict: evict}
}

// Holder is one consumer's account in a Pool.
type Holder struct {
	p     *Pool
	evict func()
	held  int64 // guarded by p.mu
	dead  bool  // evicted or released; guarded by p.mu
}

// Grow charges n more bytes. It fails with an *ExceededError when the
// pool is full and the holder is past its fair share (or nobody larger
// can be evicted), and with ErrEvicted once the holder was evicted or
// released. A failed Grow charges nothing.
func (h *Holder) Grow(n int64) error {
	if n <= 0 {
		return nil
	}
	p := h.p
	p.mu.Lock()
	if h.dead {
		p.mu.Unlock()
		return ErrEvicted
	}
	if p.used+n <= p.limit {
		h.charge(n)
		p.mu.Unlock()
		return nil
	}
	victims := p.victims(h, n)
	if victims == nil {
		err := &ExceededError{Name: p.name, Limit: p.limit, Used: p.used, Want: n}
		p.mu.Unlock()
		return err
	}
	for _, v := range victims {
		p.used -= v.held
		v.held = 0
		v.dead = true
		delete(p.holding, v)
	}
	h.charge(n)
	p.mu.Unlock()
	for _, v := range victims {
		go v.evict()
	}
	return nil
}

// charge adds n to h; the caller holds p.mu and has checked the room.
func (h *Holder) charge(n int64) {
	h.held += n
	h.p.used += n
	h.p.holding[h] = struct{}{}
}

// victims picks the largest evictable holders, each larger than h would
// be after growing by n, whose eviction makes room for n; nil when h is
// past its fair share or no such set exists. The caller holds p.mu.
func (p *Pool) victims(h *Holder, n int64) []*Holder {
	active := int64(len(p.holding))
	if h.held == 0 {
		active++
	}
	if h.held+n > p.limit/active {
		return nil
	}
	var cands []*Holder
	for o := range p.holding {
		if o != h && o.evict != nil && o.held > h.held+n {
			cands = append(cands, o)
		}
	}
	slices.SortFunc(cands, func(a, b *Holder) int {
		switch {
		case a.held > b.held:
			return -1
		case a.held < b.held:
			return 1
		}
		return 0
	})
	need := p.used + n - p.limit
	for i, v := range cands {
		need -= v.held
		if need <= 0 {
			return cands[:i+1]
		}
	}
	return nil
}

// Shrink returns n bytes (at most what h holds). It is a no-op on an
// evicted or released holder, whose account was emptied already.
func (h *Holder) Shrink(n int64) {
	if n <= 0 {
		return
	}
	p := h.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if h.dead {
		return
	}
	n = min(n, h.held)
	h.held -= n
	p.used -= n
	if h.held == 0 {
		delete(p.holding, h)
	}
}

// Held returns the bytes h holds.
func (h *Holder) Held() int64 {
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	return h.held
}

// Evicted reports whether h was evicted or released.
func (h *Holder) Evicted() bool {
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	return h.dead
}

// Release returns everything h holds and retires it: later Grows fail
// with ErrEvicted. The evict callback is not called.
func (h *Holder) Release() {
	p := h.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if h.dead {
		return
	}
	p.used -= h.held
	h.held = 0
	h.dead = true
	delete(p.holding, h)
}
