package eval

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Memory accounting. A session with a budget (Options.Budget) charges it
// for the values its evaluation keeps alive, so a program that holds more
// than the budget gets quota_exceeded instead of exhausting the process.
//
// Go frees memory by garbage collection, so the evaluator cannot release a
// charge when a variable is overwritten: a value may live on in a list, a
// closure or the transcript. Instead each value of significant size is
// charged once, when an evaluating node first produces it, and released by
// a runtime cleanup when the collector reclaims it:
//
//   - "Significant" is trackMin bytes of the value's own memory (a long
//     string, a list's backing array, a table's columns, captured output)
//     or, for a container, of its own memory plus the small values it
//     reaches. Small values are counted in the tracked value that holds
//     them; values that are large on their own are tracked separately
//     (split off, see value.Sizer), so a list of big strings charges each
//     string once however many lists share it.
//   - A tracked value is remembered under a weak pointer to its memory (a
//     string's bytes, a list's backing array, a container's header), so
//     producing the same value again (returning it from a function,
//     passing it through a method) charges nothing, and a substring or
//     sub-list that shares a prefix is charged only for what it adds.
//   - When a charge does not fit, the kernel's budget forces one garbage
//     collection (reclaim.Collect) so that charges of values already dead
//     are released, and retries; a loop that builds and drops big values
//     therefore does not fail, a program that keeps them does.
//
// Small values held directly by a variable of the session's own scope
// (which outlives every evaluation) are charged per name as they are bound
// (bindRoot) and released when the name is bound again. What is not
// counted: small values (< trackMin) held directly by the locals of running
// calls and by no tracked container; each such slot holds less than
// trackMin and lives only while its call runs. See docs/architecture.md,
// "Memory budgets".
const trackMin = 64 << 10

// meter charges one session's budget for the values it keeps alive.
type meter struct {
	b    *budget.Budget
	mu   sync.Mutex
	held map[weak.Pointer[byte]]int64 // tracked value -> bytes charged
	// byAddr finds a tracked value's weak pointer from its address
	// without making one (weak.Make allocates for memory that has none),
	// so measuring can ask cheaply whether a child is tracked already.
	byAddr map[uintptr]weak.Pointer[byte]
	// counted is m.tracked as a func value, made once.
	counted func(value.Value) bool
	root    map[string]int64 // session variable -> bytes of small values charged
	// credit is reserved memory whose operation has returned
	// (ReserveMemory): still charged, it is given back just before the
	// next charge, so the result it was reserved for is charged in its
	// place with no window for another session to take the room.
	credit atomic.Int64
}

// useCredit gives back the reservations whose operations have returned.
func (m *meter) useCredit() {
	if c := m.credit.Swap(0); c > 0 {
		m.b.Release(c)
	}
}

func newMeter(b *budget.Budget) *meter {
	if b == nil {
		return nil
	}
	m := &meter{b: b, held: map[weak.Pointer[byte]]int64{}, byAddr: map[uintptr]weak.Pointer[byte]{}, root: map[string]int64{}}
	m.counted = m.tracked
	return m
}

// tracked reports whether v's memory is charged on its own already (or is
// being charged by a concurrent producer), so a container holding it need
// not count what it reaches.
func (m *meter) tracked(v value.Value) bool {
	ptr := identity(v)
	if ptr == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	wp, ok := m.byAddr[uintptr(unsafe.Pointer(ptr))]
	// The weak pointer still resolving to ptr proves the tracked value is
	// the one at this address, not a new one where a dead one was.
	return ok && wp.Value() == ptr
}

// trackNodes is the most containers a measurement that decides whether
// to track a value walks: a value reaching more untracked containers than
// this is tracked on its own, so a chain of small containers (x = [x] in a
// loop) is cut into tracked segments and each new wrapper costs a short
// walk, not one to the bottom.
const trackNodes = 64

// sizer returns a pooled Sizer that skips what m tracks.
func (m *meter) sizer() *value.Sizer {
	sz := value.GetSizer()
	sz.Counted = m.counted
	return sz
}

func (m *meter) putSizer(sz *value.Sizer) { value.PutSizer(sz) }

// bindRoot charges the session for v, about to be bound to name in the
// session's own scope, when v is small enough not to be tracked on its
// own, and releases what the name's previous value was charged. It fails
// with quota_exceeded, binding nothing, when v does not fit.
func (t *thread) bindRoot(name string, v value.Value) error {
	m := t.in.meter
	if m == nil {
		return nil
	}
	n, err := m.smallCost(v)
	if err != nil {
		return err
	}
	m.mu.Lock()
	old := m.root[name]
	m.mu.Unlock()
	switch {
	case n > old:
		m.useCredit()
		if err := m.b.Charge(n - old); err != nil {
			return quotaError(err)
		}
	case n < old:
		m.b.Release(old - n)
	}
	m.mu.Lock()
	if n == 0 {
		delete(m.root, name)
	} else {
		m.root[name] = n
	}
	m.mu.Unlock()
	return nil
}

// smallCost is what v costs held by a variable beyond what is tracked on
// its own: its footprint when that is under trackMin (its large parts are
// tracked apart), 0 when v is large, after making sure it is tracked.
func (m *meter) smallCost(v value.Value) (int64, error) {
	switch x := v.(type) {
	case value.Str:
		if len(x) >= trackMin {
			return 0, nil
		}
		return value.OwnSize(x), nil
	case value.Bytes:
		if len(x) >= trackMin {
			return 0, nil
		}
		return value.OwnSize(x), nil
	case value.Path:
		return value.OwnSize(x), nil
	case *value.List, *value.Record, *value.Table, *value.Outcome, *value.Error, *Closure, *Task:
	default:
		return 0, nil
	}
	sz := m.sizer()
	sz.NodeLimit = trackNodes
	n := sz.Measure(v, trackMin, trackMin)
	long := sz.Truncated
	m.putSizer(sz)
	if n >= trackMin || long {
		return 0, m.account(v)
	}
	return n, nil
}

// rootBinding reports whether b, found for name from some scope, is the
// session scope's own binding of name.
func (in *Interp) rootBinding(name string, b *binding) bool {
	i := in.root.localIndex(name)
	return i >= 0 && &in.root.vars[i] == b
}

// reserved marks a value being tracked by another producer right now.
const reserved = -1

// heldKey is what a tracked value's cleanup needs to release its charge.
type heldKey struct {
	m    *meter
	k    weak.Pointer[byte]
	addr uintptr
}

func releaseHeld(h heldKey) {
	h.m.mu.Lock()
	n := h.m.held[h.k]
	delete(h.m.held, h.k)
	if h.m.byAddr[h.addr] == h.k {
		delete(h.m.byAddr, h.addr)
	}
	h.m.mu.Unlock()
	if n > 0 {
		h.m.b.Release(n)
	}
}

// keep charges v, a value an evaluating node has just produced, to the
// session's budget; it returns v, or the quota_exceeded error when v does
// not fit.
func (t *thread) keep(v value.Value, err error) (value.Value, error) {
	m := t.in.meter
	if err != nil || m == nil {
		return v, err
	}
	switch x := v.(type) {
	case value.Str:
		if len(x) < trackMin {
			return v, nil
		}
	case value.Bytes:
		if len(x) < trackMin {
			return v, nil
		}
	case *value.List:
		if len(x.Items) == 0 {
			return v, nil
		}
	case *value.Record, *value.Table, *value.Outcome, *value.Error, *Closure, *Task:
	default:
		return v, nil
	}
	if err := m.account(v); err != nil {
		return nil, err
	}
	return v, nil
}

// account tracks v if it is large, or the large values it holds if it is
// not.
func (m *meter) account(v value.Value) error {
	if smallFlat(v) {
		return nil
	}
	sz := m.sizer()
	defer m.putSizer(sz)
	sz.NodeLimit = trackNodes
	n := sz.Measure(v, trackMin, trackMin)
	sz.NodeLimit = 0
	if n >= trackMin || sz.Truncated {
		// Measured only in part: track it whole.
		clear(sz.Split)
		sz.Split = append(sz.Split[:0], v)
	}
	return m.track(sz)
}

// smallFlat reports, without allocating, that v is a short list or record
// of scalars and short strings: nothing to track.
func smallFlat(v value.Value) bool {
	var items []value.Value
	switch x := v.(type) {
	case *value.List:
		items = x.Items
	case *value.Record:
		items = x.Values()
	default:
		return false
	}
	if len(items) > 64 {
		return false
	}
	for _, it := range items {
		switch x := it.(type) {
		case value.Int, value.Float, value.Size, value.Duration, value.Time, value.Bool, value.Null:
		case value.Str:
			if len(x) > 512 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// track charges each value in sz.Split (and the large values each holds)
// that is not tracked yet.
func (m *meter) track(sz *value.Sizer) error {
	for len(sz.Split) > 0 {
		v := sz.Split[len(sz.Split)-1]
		sz.Split[len(sz.Split)-1] = nil
		sz.Split = sz.Split[:len(sz.Split)-1]
		ptr := identity(v)
		if ptr == nil {
			continue
		}
		k := weak.Make(ptr)
		m.mu.Lock()
		prev, seen := m.held[k]
		if !seen {
			m.held[k] = reserved // a concurrent producer skips it
		}
		m.mu.Unlock()
		if seen && (prev == reserved || !extends(v, prev)) {
			continue
		}
		if !seen {
			prev = 0
		}
		n := max(sz.Measure(v, 0, trackMin)-prev, 0)
		m.useCredit()
		if err := m.b.Charge(n); err != nil {
			if !seen {
				m.mu.Lock()
				delete(m.held, k)
				m.mu.Unlock()
			}
			return quotaError(err)
		}
		addr := uintptr(unsafe.Pointer(ptr))
		m.mu.Lock()
		m.held[k] = prev + n
		m.byAddr[addr] = k
		m.mu.Unlock()
		if !seen {
			runtime.AddCleanup(ptr, releaseHeld, heldKey{m, k, addr})
		}
	}
	return nil
}

// extends reports whether v, whose memory is already tracked with prev
// bytes, reaches further than what was charged: a longer string or list
// over the same storage.
func extends(v value.Value, prev int64) bool {
	switch x := v.(type) {
	case value.Str:
		return int64(len(x)) > prev
	case value.Bytes:
		return int64(len(x)) > prev
	case *value.List:
		return value.OwnSize(x) > prev
	}
	return false
}

// identity is the memory a tracked value is known by: its bytes for a
// string, its backing array for a list, its header for other containers.
func identity(v value.Value) *byte {
	switch x := v.(type) {
	case value.Str:
		if len(x) > 0 {
			return unsafe.StringData(string(x))
		}
	case value.Bytes:
		if len(x) > 0 {
			return unsafe.StringData(string(x))
		}
	case value.Path:
		if len(x) > 0 {
			return unsafe.StringData(string(x))
		}
	case *value.List:
		if cap(x.Items) > 0 {
			return (*byte)(unsafe.Pointer(unsafe.SliceData(x.Items[:1])))
		}
		return (*byte)(unsafe.Pointer(x))
	case *value.Record:
		return (*byte)(unsafe.Pointer(x))
	case *value.Table:
		return (*byte)(unsafe.Pointer(x))
	case *value.Outcome:
		return (*byte)(unsafe.Pointer(x))
	case *value.Error:
		return (*byte)(unsafe.Pointer(x))
	case *Closure:
		return (*byte)(unsafe.Pointer(x))
	case *Task:
		return (*byte)(unsafe.Pointer(x))
	}
	return nil
}

// quotaError turns a budget refusal (possibly wrapped with what was being
// done) into the language error.
func quotaError(err error) *value.Error {
	return errorf(budget.CodeQuotaExceeded, "%s", err.Error()).WithHint(budget.Hint)
}

// begin prepares ctx for one top-level evaluation: the host charges
// captured output to the session's budget, and the kernel's memory guard
// can cancel the evaluation through the budget (budget.Cancel) with a
// cause that end turns into quota_exceeded.
func (in *Interp) begin(ctx context.Context) (context.Context, evalRun) {
	if in.meter == nil {
		return ctx, evalRun{}
	}
	ctx = host.WithMemory(ctx, in.meter.b)
	ctx, cancel := context.WithCancelCause(ctx)
	return ctx, evalRun{in: in, reg: in.meter.b.Register(cancel), cancel: cancel}
}

// evalRun is what begin set up for one evaluation; done undoes it. A
// value, not a closure, so that beginning an evaluation allocates less
// (every exec begins one).
type evalRun struct {
	in     *Interp // nil: nothing was set up
	reg    budget.CancelRegistration
	cancel context.CancelCauseFunc
}

// done ends the evaluation's registration with the memory guard, cancels
// its context and gives back the reservations no charge took over.
func (r evalRun) done() {
	if r.in == nil {
		return
	}
	r.reg.Unregister()
	r.cancel(nil)
	r.in.meter.useCredit() // reservations no charge took over
}

// end rewrites the error of an evaluation cancelled by the memory guard:
// inside the program it was a cancellation (which no catch can stop), to
// the caller it is quota_exceeded naming the budget. Another cancellation
// with a cause of its own is worded by it.
func end(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	var ex *budget.ExceededError
	if cause := context.Cause(ctx); errors.As(cause, &ex) {
		e := quotaError(fmt.Errorf("%w; the evaluation was cancelled to keep the kernel alive", ex))
		var ve *value.Error
		if errors.As(err, &ve) && ve.HasPos {
			e = e.At(ve.Span)
		}
		return e
	}
	// A cancellation whose cause says more than the context's "context
	// canceled" (a signal, a task's cancel) reports the cause.
	var ve *value.Error
	if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() && errors.As(err, &ve) &&
		ve.Code == value.CodeCancelled && ve.Msg == ctx.Err().Error() {
		said := *ve
		said.Msg = cause.Error()
		return &said
	}
	return err
}

// FootprintOwn implements value.Holder: a closure's header.
func (c *Closure) FootprintOwn() int64 { return 160 }

// FootprintHeld implements value.Holder: the variables the closure
// captured, scope by scope out to (not including) the session's own.
func (c *Closure) FootprintHeld(yield func(value.Value)) {
	if c.env != nil && c.env.parent != nil {
		yield(c.env)
	}
}

// Kind, FootprintOwn and FootprintHeld let a captured scope be measured
// as a value.Holder; a scope is never a value of the language.
func (*scope) Kind() value.Kind { return value.KClosure }

// FootprintOwn implements value.Holder.
func (s *scope) FootprintOwn() int64 {
	return int64(64 + 40*cap(s.vars) + 48*len(s.index))
}

// FootprintHeld implements value.Holder.
func (s *scope) FootprintHeld(yield func(value.Value)) {
	for i := range s.vars {
		if v := s.vars[i].val; v != nil {
			yield(v)
		}
	}
	if p := s.parent; p != nil && p.parent != nil {
		yield(p)
	}
}

// FootprintOwn implements value.Holder: a task handle.
func (tk *Task) FootprintOwn() int64 { return 48 }

// FootprintHeld implements value.Holder: the task's result.
func (tk *Task) FootprintHeld(yield func(value.Value)) {
	if v, _ := tk.result(); v != nil {
		yield(v)
	}
}

// ReserveMemory implements value.Reserver: it charges the session's
// budget for n bytes an operation is about to allocate, so a refusal comes
// before the allocation (value.Reserve). release turns the charge into
// credit, which the session's next charge (the result's, as the evaluator
// keeps it) gives back just before it charges, or the end of the
// evaluation does.
func (t *thread) ReserveMemory(n int64) (release func(), err error) {
	m := t.in.meter
	if m == nil || n <= 0 {
		return func() {}, nil
	}
	if err := m.b.Charge(n); err != nil {
		return nil, quotaError(err)
	}
	return func() { m.credit.Add(n) }, nil
}

// binaryReserved applies op to l and r, first reserving what a
// concatenation (`+` of lists, strings, bytes or tables) will allocate.
func (t *thread) binaryReserved(op syntax.BinOp, l, r value.Value) (value.Value, error) {
	if op != syntax.OpAdd {
		return value.BinaryOp(op, l, r)
	}
	release, err := value.Reserve(t, value.ConcatBytes(l, r))
	if err != nil {
		return nil, err
	}
	defer release()
	return value.BinaryOp(op, l, r)
}
