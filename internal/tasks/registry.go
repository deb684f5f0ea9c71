package tasks

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Default bounds, per owner.
const (
	// MaxLive is how many tasks one owner may have running (or
	// cancelling) at once; Start beyond it fails with ErrTooManyTasks
	// (a *budget.ExceededError naming BudgetLive).
	MaxLive = 64
	// MaxRetained is how many finished task records one owner keeps; the
	// oldest finished record is evicted (and its id becomes unknown) when
	// another task finishes.
	MaxRetained = 256
	// MaxForeground is how many foreground tasks (see StartForeground)
	// one owner may have running at once, apart from MaxLive; beyond it
	// StartForeground fails with ErrTooManyTasks (BudgetForeground).
	MaxForeground = 256
	// MaxDesc bounds the Desc a language task's record keeps, in bytes.
	MaxDesc = 256
)

// Names of the bounds, as refusals and docs name them.
const (
	BudgetLive       = "live_tasks"
	BudgetForeground = "foreground_tasks"
)

// Work is the body of a task. It must return soon after ctx is cancelled;
// the task stays in state cancelling until it does.
type Work func(ctx context.Context) (any, error)

// FinishFunc is called on the task's goroutine after its work returns and
// before the task becomes terminal, with what the work returned. The
// returned string becomes the record's ResultRef ("" for none).
type FinishFunc func(t *Task, v any, err error) (resultRef string)

// Option configures a Registry.
type Option func(*Registry)

// WithLimits overrides MaxLive and MaxRetained; values below 1 keep the
// default.
func WithLimits(live, retained int) Option {
	return func(r *Registry) {
		if live > 0 {
			r.maxLive = live
		}
		if retained > 0 {
			r.maxRetained = retained
		}
	}
}

// WithClock sets the clock used for started_ns and finished_ns.
func WithClock(now func() time.Time) Option {
	return func(r *Registry) {
		if now != nil {
			r.now = now
		}
	}
}

// Registry holds the tasks of every owner. Its methods are safe for
// concurrent use. Ids are "task:N", N counting up from 1 per registry and
// never reused.
type Registry struct {
	maxLive     int
	maxRetained int
	now         func() time.Time

	mu       sync.Mutex
	next     uint64
	byID     map[uint64]*Task
	owners   map[Owner]*ownerTasks
	closed   bool
	onChange func(Record)
	onFinish FinishFunc
}

// ownerTasks is one owner's share: live tasks and finished ones, oldest
// first.
type ownerTasks struct {
	live       map[uint64]*Task
	foreground int // how many of live are foreground tasks
	finished   []*Task
}

// New returns an empty registry.
func New(opts ...Option) *Registry {
	r := &Registry{
		maxLive:     MaxLive,
		maxRetained: MaxRetained,
		now:         time.Now,
		byID:        make(map[uint64]*Task),
		owners:      make(map[Owner]*ownerTasks),
	}
	for _, o := range opts {
		o(r)
	}
	return r
}

// OnChange sets the hook called with a snapshot after every change of a
// task record: start (running), cancellation requested (cancelling),
// suspension or resumption, and finish (terminal, always the last call for
// a task). Calls for one task are made one at a time, in order; calls for
// different tasks may run concurrently. The hook may call the registry.
// Set it before starting tasks.
func (r *Registry) OnChange(f func(Record)) {
	r.mu.Lock()
	r.onChange = f
	r.mu.Unlock()
}

// OnFinish sets the hook that turns a task's returned value into a result
// reference (see FinishFunc). Set it before starting tasks.
func (r *Registry) OnFinish(f FinishFunc) {
	r.mu.Lock()
	r.onFinish = f
	r.mu.Unlock()
}

// Start runs work in a new task owned by owner; label describes it (for
// example the source text). It fails with ErrTooManyTasks (a
// *budget.ExceededError) when the owner already has MaxLive live tasks,
// and with ErrClosed after Close.
func (r *Registry) Start(owner Owner, label string, work Work) (*Task, error) {
	return r.start(owner, label, work, false)
}

// StartForeground runs work as a foreground task: work a caller is
// waiting for (a synchronous exec), registered so that it can be seen and
// cancelled like any task. Its record has Foreground set; it counts
// against MaxForeground rather than MaxLive; and it is not retained once
// finished (its waiter has the result): its id becomes unknown as soon as
// it is terminal, though Done, Result and an Await already under way
// still work.
func (r *Registry) StartForeground(owner Owner, label string, work Work) (*Task, error) {
	return r.start(owner, label, work, true)
}

// RunForeground is StartForeground running work on the calling goroutine
// rather than a new one (a synchronous exec's handler has nothing else to
// do while it waits): it returns once the task is terminal and Done is
// closed. When stop ends first the task is cancelled, as Cancel would.
func (r *Registry) RunForeground(stop context.Context, owner Owner, label string, work Work) (*Task, error) {
	t, ctx, drain, err := r.register(owner, label, work, true, nil)
	if err != nil {
		return nil, err
	}
	if drain {
		t.drain()
	}
	unwatch := context.AfterFunc(stop, func() { t.requestCancel() })
	t.run(ctx, work)
	unwatch()
	<-t.done // another goroutine may be delivering the last notification
	return t, nil
}

// StartLanguage registers a task of the owner's language session (a
// spawn, `cmd &`, an on handler, a parallel branch) whose work waits for
// it: its record has Language set and Desc desc (at most MaxDesc bytes
// kept). awaited starts it as a foreground task (see StartForeground),
// for a task its starter waits for; otherwise it is bounded and retained
// like Start's.
func (r *Registry) StartLanguage(owner Owner, desc string, awaited bool, work Work) (*Task, error) {
	if len(desc) > MaxDesc {
		desc = desc[:MaxDesc]
	}
	return r.startRec(owner, desc, work, awaited, func(rec *Record) { rec.Language, rec.Desc = true, desc })
}

func (r *Registry) start(owner Owner, label string, work Work, foreground bool) (*Task, error) {
	return r.startRec(owner, label, work, foreground, nil)
}

// startRec registers a task (fill, when set, completes its record) and
// runs work on a goroutine of its own.
func (r *Registry) startRec(owner Owner, label string, work Work, foreground bool, fill func(*Record)) (*Task, error) {
	t, ctx, drain, err := r.register(owner, label, work, foreground, fill)
	if err != nil {
		return nil, err
	}
	go t.run(ctx, work)
	if drain {
		t.drain()
	}
	return t, nil
}

// register creates the task for work and its context; drain reports that
// the caller must deliver its first notification.
func (r *Registry) register(owner Owner, label string, work Work, foreground bool, fill func(*Record)) (t *Task, ctx context.Context, drain bool, err error) {
	if work == nil {
		return nil, nil, false, fmt.Errorf("start task: nil work")
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, nil, false, fmt.Errorf("start task: %w", ErrClosed)
	}
	ot := r.owners[owner]
	if ot == nil {
		ot = &ownerTasks{live: make(map[uint64]*Task)}
		r.owners[owner] = ot
	}
	switch {
	case foreground && ot.foreground >= MaxForeground:
		r.mu.Unlock()
		return nil, nil, false, limitError(owner, BudgetForeground, MaxForeground, "foreground tasks (synchronous execs) running")
	case !foreground && len(ot.live)-ot.foreground >= r.maxLive:
		r.mu.Unlock()
		return nil, nil, false, limitError(owner, BudgetLive, r.maxLive, "running tasks")
	}
	r.next++
	t = &Task{r: r, seq: r.next, owner: owner, done: make(chan struct{})}
	t.rec = Record{
		Task:       formatID(t.seq),
		Session:    owner.Session,
		State:      Running,
		StartedNs:  r.now().UnixNano(),
		Label:      label,
		Foreground: foreground,
	}
	if fill != nil {
		fill(&t.rec)
	}
	if foreground {
		ot.foreground++
	}
	t.root = taskRoot{t: t}
	ctx, cancel := context.WithCancel(&t.root)
	t.cancel = cancel
	r.byID[t.seq] = t
	ot.live[t.seq] = t
	drain = t.notifyLocked()
	r.mu.Unlock()
	return t, ctx, drain, nil
}

// Lookup returns the caller's task with the given id.
func (r *Registry) Lookup(owner Owner, id string) (*Task, error) {
	seq, ok := parseID(id)
	if !ok {
		return nil, unknown(id)
	}
	r.mu.Lock()
	t := r.byID[seq]
	r.mu.Unlock()
	if t == nil || t.owner != owner {
		return nil, unknown(id)
	}
	return t, nil
}

// Get returns the record of the caller's task.
func (r *Registry) Get(owner Owner, id string) (Record, error) {
	t, err := r.Lookup(owner, id)
	if err != nil {
		return Record{}, err
	}
	return t.Record(), nil
}

// List returns the records of the caller's live and retained tasks in id
// order.
func (r *Registry) List(owner Owner) []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	ot := r.owners[owner]
	if ot == nil {
		return []Record{}
	}
	out := make([]Record, 0, len(ot.live)+len(ot.finished))
	for _, t := range ot.finished {
		out = append(out, t.rec)
	}
	for _, t := range ot.live {
		out = append(out, t.rec)
	}
	slices.SortFunc(out, func(a, b Record) int {
		sa, _ := parseID(a.Task)
		sb, _ := parseID(b.Task)
		switch {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return 0
	})
	return out
}

// Await waits until the caller's task is terminal and returns its record;
// by then every OnChange call for it has returned. A timeout above zero
// bounds the wait: when it expires the current record (state running or
// cancelling) is returned with TimedOut set and a nil error. When ctx ends
// first, Await returns the current record and ctx's error.
func (r *Registry) Await(ctx context.Context, owner Owner, id string, timeout time.Duration) (Record, error) {
	t, err := r.Lookup(owner, id)
	if err != nil {
		return Record{}, err
	}
	select {
	case <-t.done:
		return t.Record(), nil
	default:
	}
	var expired <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case <-t.done:
		return t.Record(), nil
	case <-ctx.Done():
		return t.Record(), fmt.Errorf("await %s: %w", id, ctx.Err())
	case <-expired:
	}
	rec := t.Record()
	if !rec.State.Terminal() {
		rec.TimedOut = true
		return rec, nil
	}
	// Finished at the deadline: wait for its last notification so the
	// guarantee above holds.
	select {
	case <-t.done:
		return t.Record(), nil
	case <-ctx.Done():
		return rec, fmt.Errorf("await %s: %w", id, ctx.Err())
	}
}

// Cancel asks the caller's task to stop: a running task turns cancelling,
// its context is cancelled (and, if suspended, its processes continued so
// they can die), and it becomes cancelled when its work returns. Cancelling
// a task that is already cancelling or terminal changes nothing. Cancel
// returns the record as it is after the request.
func (r *Registry) Cancel(owner Owner, id string) (Record, error) {
	t, err := r.Lookup(owner, id)
	if err != nil {
		return Record{}, err
	}
	return t.requestCancel(), nil
}

// CancelAll cancels every live task of every owner and waits until all of
// them are terminal or ctx ends, returning ctx's error in that case.
func (r *Registry) CancelAll(ctx context.Context) error {
	r.mu.Lock()
	var live []*Task
	for _, ot := range r.owners {
		for _, t := range ot.live {
			live = append(live, t)
		}
	}
	r.mu.Unlock()
	for _, t := range live {
		t.requestCancel()
	}
	for _, t := range live {
		select {
		case <-t.done:
		case <-ctx.Done():
			return fmt.Errorf("cancel all tasks: %w", ctx.Err())
		}
	}
	return nil
}

// Live reports how many tasks of every owner are running or cancelling.
func (r *Registry) Live() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, ot := range r.owners {
		n += len(ot.live)
	}
	return n
}

// Close makes every later Start fail with ErrClosed, then does CancelAll.
func (r *Registry) Close(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	return r.CancelAll(ctx)
}

// retireLocked moves a finished task from its owner's live set to the
// retained records, evicting the oldest beyond the bound.
func (r *Registry) retireLocked(t *Task) {
	ot := r.owners[t.owner]
	delete(ot.live, t.seq)
	if t.rec.Foreground {
		ot.foreground--
		delete(r.byID, t.seq)
		return
	}
	ot.finished = append(ot.finished, t)
	if n := len(ot.finished) - r.maxRetained; n > 0 {
		for _, old := range ot.finished[:n] {
			delete(r.byID, old.seq)
		}
		k := copy(ot.finished, ot.finished[n:])
		clear(ot.finished[k:])
		ot.finished = ot.finished[:k]
	}
}
