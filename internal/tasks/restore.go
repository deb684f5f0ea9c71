package tasks

import (
	"errors"
	"slices"
)

// ErrInterrupted is the error of a task its kernel stopped while it ran.
var ErrInterrupted = errors.New("interrupted: the kernel stopped while the task ran")

// Restore adds finished records of owner that an earlier kernel kept (a
// restart), oldest first, as if their tasks had run here: they are
// terminal (a record in any other state is made Interrupted, ended now
// when it names no end), their ids
// are known to Get, List and Await, and the ids this registry hands out
// from then on are above every restored one and above floor (the largest
// id the owner ever had, restored or not), so no id names two tasks.
// Records past MaxRetained keep only the newest. Records whose id is not
// canonical or already known are skipped.
func (r *Registry) Restore(owner Owner, recs []Record, floor uint64) {
	recs = slices.Clone(recs)
	slices.SortFunc(recs, func(a, b Record) int {
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
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next = max(r.next, floor)
	ot := r.owners[owner]
	if ot == nil {
		ot = &ownerTasks{live: make(map[uint64]*Task)}
		r.owners[owner] = ot
	}
	for _, rec := range recs {
		seq, ok := parseID(rec.Task)
		if !ok || r.byID[seq] != nil {
			continue
		}
		r.next = max(r.next, seq)
		if !rec.State.Terminal() {
			rec.State = Interrupted
		}
		if rec.State == Interrupted && rec.Err == nil {
			rec.Err = ErrInterrupted
		}
		if rec.FinishedNs == 0 {
			rec.FinishedNs = r.now().UnixNano()
		}
		rec.Session, rec.Foreground, rec.Suspended, rec.TimedOut = owner.Session, false, false, false
		t := &Task{r: r, seq: seq, owner: owner, done: make(chan struct{}), cancel: func() {}, rec: rec, err: rec.Err}
		close(t.done)
		r.byID[seq] = t
		ot.finished = append(ot.finished, t)
	}
	if n := len(ot.finished) - r.maxRetained; n > 0 {
		for _, old := range ot.finished[:n] {
			delete(r.byID, old.seq)
		}
		ot.finished = slices.Delete(ot.finished, 0, n)
	}
}
