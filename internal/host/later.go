package host

import (
	"context"
	"sync"

	"github.com/shoalgo/shoal/internal/contain"
	"golang.org/x/sys/unix"
)

// Later holds what a Run leaves for after its caller has answered: the
// spent descriptors of the child's pipes and its pidfd, and the settling
// of its containment (the check that its cgroup leaf is empty, a read of
// cgroup.events, and the leaf's return to the scope's pool). None of it is
// needed for the Result, and the kernel's answer to an exec would wait for
// four system calls and the bookkeeping around them between the child's
// exit and the answer.
//
// A Later holds one Run's tail at most: a Run given one (WithLater) first
// runs whatever tail is pending there (so a loop of spawns reuses its
// leaf and never keeps more than one child's descriptors open), and hands
// it its own. Its holder runs the tail with Flush once it has answered,
// and before it lets go of what the Runs used (the kernel: after the
// answer, and when the session closes). What must not wait is never
// deferred: the child is reaped and marked reaped (never signalled by pid
// again), its held write ends are closed and its output read to the end
// before Run returns, and a cancelled Run settles at once. The zero value
// is ready to use.
type Later struct {
	mu     sync.Mutex
	fds    [3]int
	nfds   int
	settle func()
	closed bool // Close was called: every tail runs at once

	// spare, when nspare is 2, are the next Run's stdout and stderr
	// pipes (close-on-exec, never given to a child yet), made when a
	// tail is flushed: off the path of the next spawn's answer, as the
	// tail is off this one's.
	spare  [2][2]int
	nspare int
	// idle is where the spare pipes' descriptors are charged while they
	// wait (ChargeTo); when it is spent no spare is made.
	idle *contain.IdleFDs
}

// spareFDs is what the spare pipes cost the idle budget.
const spareFDs = 4

// ChargeTo charges the spare pipes the Later keeps between Runs to b, a
// budget shared with other Laters (nil: none). Its holder calls it before
// the Later's first use; spare pipes made before are closed.
//
// The pending tail (up to three descriptors, and the leaf its settle gives
// back) is not charged: it is not kept for reuse but is the end of a Run
// whose answer is on its way, run as soon as that answer is sent (or by
// the holder's next Run, or its Close), like the descriptors of a child
// that still runs; the idle budget bounds what outlives the work.
func (l *Later) ChargeTo(b *contain.IdleFDs) {
	l.mu.Lock()
	spare, n, old := l.spare, l.nspare, l.idle
	l.nspare, l.idle = 0, b
	l.mu.Unlock()
	if n == 2 {
		closeAll(spare[0][:])
		closeAll(spare[1][:])
		old.Release(spareFDs)
	}
}

type laterKey struct{}

// WithLater returns a context under which Run leaves its tail to l.
func WithLater(ctx context.Context, l *Later) context.Context {
	return context.WithValue(ctx, laterKey{}, l)
}

// laterOf is ctx's Later, nil when it carries none.
func laterOf(ctx context.Context) *Later {
	l, _ := ctx.Value(laterKey{}).(*Later)
	return l
}

// Flush runs the pending tail, if any, and then, when there was one and
// the Later is open, makes the next Run's pipes. It is safe to call at any
// time and from any goroutine; on a nil Later it does nothing.
func (l *Later) Flush() {
	if l == nil {
		return
	}
	l.mu.Lock()
	fds, n, settle := l.fds, l.nfds, l.settle
	l.nfds, l.settle = 0, nil
	refill := (n > 0 || settle != nil) && !l.closed && l.nspare == 0
	l.mu.Unlock()
	runTail(fds[:n], settle)
	if refill {
		l.makeSpare()
	}
}

// makeSpare makes the two pipes of the next Run, unless the idle budget
// has no room for them, making them fails, or another goroutine made them
// first (then they are closed).
func (l *Later) makeSpare() {
	l.mu.Lock()
	idle := l.idle
	l.mu.Unlock()
	if !idle.Take(spareFDs) {
		return // the next Run makes its pipes itself
	}
	var out, errp [2]int
	if sparePipe(out[:]) != nil {
		idle.Release(spareFDs)
		return
	}
	if sparePipe(errp[:]) != nil {
		closeAll(out[:])
		idle.Release(spareFDs)
		return
	}
	l.mu.Lock()
	if l.closed || l.nspare != 0 || l.idle != idle {
		l.mu.Unlock()
		closeAll(out[:])
		closeAll(errp[:])
		idle.Release(spareFDs)
		return
	}
	l.spare, l.nspare = [2][2]int{out, errp}, 2
	l.mu.Unlock()
}

// pipes takes the spare pipes, when there are; ok is false otherwise (and
// on a nil Later).
func (l *Later) pipes() (out, errp [2]int, ok bool) {
	if l == nil {
		return out, errp, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.nspare != 2 {
		return out, errp, false
	}
	l.nspare = 0
	l.idle.Release(spareFDs) // no longer idle: the Run's
	return l.spare[0], l.spare[1], true
}

// Close runs the pending tail and makes every later tail run at once, as
// if there were no Later: for a holder that will not Flush again (a
// session that closes while a task of it may still spawn).
func (l *Later) Close() {
	l.mu.Lock()
	l.closed = true
	spare, n, idle := l.spare, l.nspare, l.idle
	l.nspare = 0
	l.mu.Unlock()
	if n == 2 {
		closeAll(spare[0][:])
		closeAll(spare[1][:])
		idle.Release(spareFDs)
	}
	l.Flush()
}

// hold makes fds (at most three, each >= 0) and settle (may be nil) the
// pending tail, and then runs the tail that was pending before; on a nil
// Later it runs them at once.
func (l *Later) hold(fds []int, settle func()) {
	if l == nil {
		runTail(fds, settle)
		return
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		runTail(fds, settle)
		return
	}
	prev, nprev, prevSettle := l.fds, l.nfds, l.settle
	n := copy(l.fds[:], fds)
	l.nfds, l.settle = n, settle
	l.mu.Unlock()
	closeAll(fds[n:]) // more than a tail holds: closed now rather than lost
	runTail(prev[:nprev], prevSettle)
}

// runTail runs one tail: its descriptors closed, then its settle (may be nil).
func runTail(fds []int, settle func()) {
	closeAll(fds)
	if settle != nil {
		settle()
	}
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// finishLater is finish for a Run that leaves its tail to a Later: the
// group is marked done and the child reaped at once; what is left of the
// child's settling is returned to run later (nil when there is none). A
// cancelled group is finished whole, at once: its tree is killed now.
func (g *group) finishLater() (settle func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.done = true
	if g.cancelled {
		g.proc.Reaped()
		g.timer.Stop()
		g.proc.Kill()
		return nil
	}
	return g.proc.ReapedLater()
}
