package budget

import (
	"sync"
	"sync/atomic"
)

// Budget is a named bound on bytes, with the usage charged against it.
type Budget struct {
	name   string
	limit  int64 // <= 0: unlimited (usage is still tracked)
	parent *Budget

	used atomic.Int64
	peak atomic.Int64

	mu       sync.Mutex // guards closed, children and cancels
	closed   bool
	children map[*Budget]struct{}
	cancels  map[*canceller]struct{}

	reclaim func() // tried once before a charge fails; inherited
}

// New returns a budget of limit bytes (<= 0: unlimited) under parent (nil:
// a root). It inherits the parent's reclaim function.
func New(name string, limit int64, parent *Budget) *Budget {
	b := &Budget{name: name, limit: limit, parent: parent}
	if parent != nil {
		b.reclaim = parent.reclaim
		parent.mu.Lock()
		if !parent.closed {
			if parent.children == nil {
				parent.children = map[*Budget]struct{}{}
			}
			parent.children[b] = struct{}{}
		} else {
			b.closed = true
		}
		parent.mu.Unlock()
	}
	return b
}

// WithReclaim sets the function a failing charge calls once before it
// gives up (for example Collect, which runs the garbage collector so that
// dead values release their charges), and returns b. Budgets created under
// b afterwards inherit it. Set it before b is shared.
func (b *Budget) WithReclaim(f func()) *Budget {
	b.reclaim = f
	return b
}

// Name is the budget's name, as errors show it ("session memory").
func (b *Budget) Name() string {
	if b == nil {
		return ""
	}
	return b.name
}

// Limit is the bound in bytes; 0 or less means unlimited.
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Used is the number of bytes charged and not yet released.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// Peak is the highest usage seen.
func (b *Budget) Peak() int64 {
	if b == nil {
		return 0
	}
	return b.peak.Load()
}

// Parent is the budget b is charged under, nil for a root.
func (b *Budget) Parent() *Budget {
	if b == nil {
		return nil
	}
	return b.parent
}

// Charge accounts n more bytes to b and every budget above it, or to none
// of them: when one would pass its limit, b's reclaim function (if any) is
// run once and the charge retried, and if it still does not fit Charge
// returns an *ExceededError naming the full budget. Charging a closed
// budget fails. n <= 0 is a no-op.
func (b *Budget) Charge(n int64) error {
	if b == nil || n <= 0 {
		return nil
	}
	err := b.TryCharge(n)
	if err == nil || b.reclaim == nil {
		return err
	}
	if _, closed := err.(*closedError); closed {
		return err
	}
	b.reclaim()
	return b.TryCharge(n)
}

// TryCharge is Charge without the reclaim step.
func (b *Budget) TryCharge(n int64) error {
	if b == nil || n <= 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return &closedError{name: b.name}
	}
	if err := b.add(n); err != nil {
		return err
	}
	if err := b.parent.TryCharge(n); err != nil {
		b.used.Add(-n)
		return err
	}
	return nil
}

// add raises b's own usage by n unless that passes the limit.
func (b *Budget) add(n int64) error {
	for {
		cur := b.used.Load()
		next := cur + n
		if next < cur || (b.limit > 0 && next > b.limit) {
			return &ExceededError{Name: b.name, Limit: b.limit, Used: cur, Want: n}
		}
		if b.used.CompareAndSwap(cur, next) {
			for {
				p := b.peak.Load()
				if next <= p || b.peak.CompareAndSwap(p, next) {
					return nil
				}
			}
		}
	}
}

// Release returns n bytes charged earlier to b and the budgets above it.
// Releasing into a closed budget only lowers its own usage: Close already
// returned everything it held to its parents.
func (b *Budget) Release(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.mu.Lock()
	b.used.Add(-n)
	closed := b.closed
	b.mu.Unlock()
	if !closed {
		b.parent.Release(n)
	}
}

// Close releases everything b still holds from the budgets above it and
// detaches b from its parent: a closed session gives its memory back to
// the kernel at once, whenever its values are finally collected. Later
// charges to b fail; later releases only lower b's own usage. Closing
// twice is a no-op. Budgets under b are closed too.
func (b *Budget) Close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	held := b.used.Load()
	kids := b.childrenLocked()
	b.children = nil
	b.mu.Unlock()
	for _, k := range kids {
		k.Close()
	}
	if p := b.parent; p != nil {
		p.Release(held)
		p.mu.Lock()
		delete(p.children, b)
		p.mu.Unlock()
	}
}

// Closed reports whether Close has been called.
func (b *Budget) Closed() bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// Children returns the open budgets directly under b.
func (b *Budget) Children() []*Budget {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.childrenLocked()
}

// childrenLocked lists the budgets directly under b; b.mu is held.
func (b *Budget) childrenLocked() []*Budget {
	out := make([]*Budget, 0, len(b.children))
	for k := range b.children {
		out = append(out, k)
	}
	return out
}

// Largest returns the open budget directly under b with the highest
// usage, nil when there is none.
func (b *Budget) Largest() *Budget {
	var best *Budget
	for _, k := range b.Children() {
		if best == nil || k.Used() > best.Used() {
			best = k
		}
	}
	return best
}

// canceller is one registered cancellation function.
type canceller struct{ f func(error) }

// OnCancel registers f to be called by Cancel (the evaluator registers the
// cancellation of each running evaluation charged to b) and returns the
// function that unregisters it.
func (b *Budget) OnCancel(f func(error)) (unregister func()) {
	return b.Register(f).Unregister
}

// Cancel calls every function registered with OnCancel on b and on the
// budgets under it, with cause, and reports how many it called.
func (b *Budget) Cancel(cause error) int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	fs := make([]func(error), 0, len(b.cancels))
	for c := range b.cancels {
		fs = append(fs, c.f)
	}
	kids := b.childrenLocked()
	b.mu.Unlock()
	for _, f := range fs {
		f(cause)
	}
	n := len(fs)
	for _, k := range kids {
		n += k.Cancel(cause)
	}
	return n
}
