package value

// Charging before allocating. The evaluator charges a session's memory
// budget for a value once the value exists (internal/eval, memory.go). An
// operation that turns little memory into a lot (a range of sixteen
// million integers into a list, two long lists into their concatenation)
// would allocate all of it before that charge could refuse it, so under a
// tight address space the allocation itself could end the process. Such an
// operation first reserves what it is about to allocate through its Env,
// when the Env is a Reserver; a refused reservation fails the operation
// before anything is allocated. The reservation is released once the
// operation returns, and the evaluator then charges the result as usual.

// Reserver is implemented by an Env whose evaluation charges a memory
// budget.
type Reserver interface {
	// ReserveMemory charges n bytes that the caller is about to allocate
	// and returns the function that releases the charge; it fails with
	// quota_exceeded, charging nothing, when n does not fit.
	ReserveMemory(n int64) (release func(), err error)
}

// ReserveMin is the smallest allocation that is reserved first; smaller
// ones are charged, if at all, once they exist.
const ReserveMin = 1 << 20

func noRelease() {}

// Reserve reserves n bytes through env when env is a Reserver and n is at
// least ReserveMin; otherwise it does nothing. The returned release is
// never nil.
func Reserve(env Env, n int64) (release func(), err error) {
	if n < ReserveMin {
		return noRelease, nil
	}
	r, ok := env.(Reserver)
	if !ok {
		return noRelease, nil
	}
	release, err = r.ReserveMemory(n)
	if err != nil {
		return noRelease, err
	}
	return release, nil
}

// growReserve reserves for a collection that grows item by item, in
// chunks that double, so a refusal stops it near the budget however long
// it would have grown; release gives every chunk back.
type growReserve struct {
	reserved int64
	releases []func()
}

// need makes sure at least n bytes are reserved through env.
func (g *growReserve) need(env Env, n int64) error {
	for n > g.reserved {
		chunk := max(g.reserved, ReserveMin)
		rel, err := Reserve(env, chunk)
		if err != nil {
			return err
		}
		g.releases = append(g.releases, rel)
		g.reserved += chunk
	}
	return nil
}

func (g *growReserve) release() {
	for _, r := range g.releases {
		r()
	}
	g.releases, g.reserved = nil, 0
}

// ListBytes is about what a new list of n items costs: its header and
// slots, plus a boxed scalar per item when boxed (a range's integers).
func ListBytes(n int, boxed bool) int64 {
	per := int64(slotBytes)
	if boxed {
		per += wordBytes
	}
	return 24 + per*int64(max(n, 0))
}

// ConcatBytes is what `a + b` allocates when both are lists, strings or
// bytes (0 for anything else): the new list's slots or the new string.
func ConcatBytes(a, b Value) int64 {
	switch x := a.(type) {
	case *List:
		if y, ok := b.(*List); ok {
			return ListBytes(len(x.Items)+len(y.Items), false)
		}
	case Str:
		if y, ok := b.(Str); ok {
			return headerBytes + int64(len(x)) + int64(len(y))
		}
	case Bytes:
		if y, ok := b.(Bytes); ok {
			return headerBytes + int64(len(x)) + int64(len(y))
		}
	case *Table:
		if y, ok := b.(*Table); ok {
			return int64(slotBytes) * int64(len(x.Cols)) * int64(x.N+y.N)
		}
	}
	return 0
}
