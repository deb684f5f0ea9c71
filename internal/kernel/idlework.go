package kernel

import (
	"sync/atomic"
	"time"
)

// Idle is idle: a session is closed for idleness only when nothing holds
// it (lifecycle.go) and it has no work an idle close would end or lose:
// no running task, no PTY whose program is still running, and no retained
// task that printed output and ended within IdleOutputWindow (its output
// is still likely to be read).

// IdleOutputWindow is how long after a retained task that printed ended
// its session is kept from closing as idle.
const IdleOutputWindow = time.Minute

// workMarks records the session's recent work for the idle rule.
type workMarks struct {
	lastOutput atomic.Int64 // unix ns when a retained task with output last ended; 0: never
}

// noteOutputEnded records that a retained task with output has ended.
func (s *session) noteOutputEnded() { s.work.lastOutput.Store(time.Now().UnixNano()) }

// working reports whether the session has work an idle close would end
// or lose, at now.
func (s *session) working(now time.Time) bool {
	if s.tasks.Live() > 0 {
		return true
	}
	if s.ptys != nil && s.ptys.running(s.key) {
		return true
	}
	last := s.work.lastOutput.Load()
	return last != 0 && now.Sub(time.Unix(0, last)) < IdleOutputWindow
}

// running reports whether a PTY of the session key has its program
// running (or is being opened).
func (r *ptyRegistry) running(key sessionKey) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.perSession[key] == 0 {
		return false
	}
	for _, e := range r.byID {
		if e.owner != key {
			continue
		}
		if e.sess == nil {
			return true
		}
		select {
		case <-e.sess.Done():
		default:
			return true
		}
	}
	return false
}
