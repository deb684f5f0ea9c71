package eval

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/shoalgo/shoal/internal/value"
)

// Concurrency inside a session. A session runs one foreground evaluation
// and any number of background tasks (spawn, `&`) at once, each on its own
// goroutine. They share the session's state (scopes and the cells closures
// captured, the session working directory and environment, the directory
// stack, the task table), so every goroutine evaluates only while it holds
// the session lock:
//
//   - an evaluation takes the lock when it starts and gives it back when it
//     ends;
//   - it gives the lock up around every wait that can block: a process
//     running (host.Run), sleep, a channel or stream waiting for its next
//     item, a suspended task waiting to resume, a task awaiting another;
//   - it yields the lock at a checkpoint (each statement, loop iteration and
//     1,024th call) once it has held it for SchedQuantum and SchedMinTicks
//     checkpoints while someone else waits, so a busy loop cannot starve
//     the rest of the session. (The tick floor makes a short program that
//     has just taken the lock run to its end or first wait whatever the
//     machine's load: an async exec of one statement takes effect before
//     the requests after it.)
//
// The lock is a one-slot channel: a goroutine waiting to take it waits in
// line (a release hands the slot to the longest waiter), and the first
// acquisition of an evaluation can give up when its context ends. Code
// running while the lock is given up touches no session state: it is host
// code, which is safe for concurrent use, or bookkeeping under its own
// mutex. See docs/architecture.md, "Concurrency inside a session".
type sched struct {
	slot    chan struct{} // holding the lock is having put a token in it
	waiting atomic.Int32  // goroutines waiting to take the lock
}

func newSched() *sched { return &sched{slot: make(chan struct{}, 1)} }

// acquire takes the lock, giving up (without it) when ctx ends first.
func (s *sched) acquire(ctx context.Context) error {
	select {
	case s.slot <- struct{}{}:
		return nil
	default:
	}
	BeforeWait(ctx)
	s.waiting.Add(1)
	defer s.waiting.Add(-1)
	select {
	case s.slot <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// acquireAlways takes the lock however long it takes: an evaluation that
// gave the lock up around a wait must have it back to unwind, even when
// cancelled. Holders give it up at their next wait or quantum, so the wait
// is bounded.
func (s *sched) acquireAlways() {
	select {
	case s.slot <- struct{}{}:
		return
	default:
	}
	s.waiting.Add(1)
	s.slot <- struct{}{}
	s.waiting.Add(-1)
}

func (s *sched) release() { <-s.slot }

// strand is what one goroutine of evaluation knows about the session lock.
// A thread and the child threads it derives on the same goroutine share
// one strand; a background task gets its own.
type strand struct {
	held  bool
	since time.Time // when the lock was last taken, for the quantum
	ticks int       // checkpoints passed since then
}

// unlocked runs f with the session lock given up, when this goroutine
// holds it: f must touch no session state. Code that runs without the lock
// (a host callback) runs f directly. Either way f is a wait that can
// block, so the thread's wait hook (LeadHooks) is called first.
func (t *thread) unlocked(f func()) {
	if t.wait != nil {
		t.wait()
	}
	st := t.st
	if st == nil || !st.held {
		f()
		return
	}
	s := t.in.sched
	st.held = false
	s.release()
	defer func() {
		s.acquireAlways()
		st.held = true
		st.since, st.ticks = time.Now(), 0
	}()
	f()
}

// blocking runs f without the session lock when env is a thread holding
// it (the value.Blocker of streams and channels).
func blocking(env value.Env, f func()) { value.Block(env, f) }

// Block implements value.Blocker: f runs with the session lock given up.
func (t *thread) Block(f func()) { t.unlocked(f) }

// maybeYield gives the lock to whoever waits for it once this goroutine
// has held it for SchedQuantum.
func (t *thread) maybeYield() {
	st := t.st
	if st == nil || !st.held {
		return
	}
	st.ticks++
	if st.ticks < SchedMinTicks || t.in.sched.waiting.Load() == 0 || time.Since(st.since) < SchedQuantum {
		return
	}
	t.unlocked(func() {})
}

// hold takes the session lock for a new strand, giving up when ctx ends.
func (in *Interp) hold(ctx context.Context, st *strand) error {
	if err := in.sched.acquire(ctx); err != nil {
		return err
	}
	st.held, st.since, st.ticks = true, time.Now(), 0
	return nil
}

// letGo gives back the lock st holds.
func (in *Interp) letGo(st *strand) {
	if st.held {
		st.held = false
		in.sched.release()
	}
}

// Hold takes the session lock for work on the session's state outside an
// evaluation (the kernel reads bindings and parses against them under it)
// and returns its release. It fails when ctx ends before the lock comes.
// Do not evaluate while holding it: an evaluation takes the lock itself.
func (in *Interp) Hold(ctx context.Context) (release func(), err error) {
	st := &strand{}
	if err := in.hold(ctx, st); err != nil {
		return nil, err
	}
	return func() { in.letGo(st) }, nil
}
