package contain

import "sync/atomic"

// IdleFDs is a budget of descriptors kept open only to be reused: a
// scope's pool of empty cgroup leaves (two descriptors each) and a
// session's spare pipes for its next spawn (host.Later, four). Each
// session keeps few, but sessions are many; one IdleFDs shared by all of
// them bounds the sum, so that sessions left idle cannot use up the
// process's descriptor table (RLIMIT_NOFILE) and make accept and spawn
// fail for everyone. When it is spent, a holder simply does not keep what
// it would have kept (the leaf is removed, no spare pipes are made):
// nothing is refused. A nil *IdleFDs bounds nothing. Its methods are safe
// for concurrent use.
type IdleFDs struct {
	limit int64
	used  atomic.Int64
}

// NewIdleFDs returns a budget of limit descriptors (at least 0).
func NewIdleFDs(limit int) *IdleFDs {
	return &IdleFDs{limit: max(int64(limit), 0)}
}

// Take charges n descriptors and reports whether they fit; when they do
// not, nothing is charged and the caller must not keep them.
func (b *IdleFDs) Take(n int) bool {
	if b == nil || n <= 0 {
		return true
	}
	for {
		u := b.used.Load()
		if u+int64(n) > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+int64(n)) {
			return true
		}
	}
}

// Release gives back n descriptors a Take charged.
func (b *IdleFDs) Release(n int) {
	if b == nil || n <= 0 {
		return
	}
	b.used.Add(-int64(n))
}

// Used is the descriptors charged now (0 on a nil budget).
func (b *IdleFDs) Used() int {
	if b == nil {
		return 0
	}
	return int(b.used.Load())
}

// Limit is the budget's bound (-1 on a nil budget: none).
func (b *IdleFDs) Limit() int {
	if b == nil {
		return -1
	}
	return int(b.limit)
}
