package kernel

import (
	"context"

	"github.com/shoalgo/shoal/internal/contain"
)

// processes is the containment scope of every process the session's
// commands started (nil for a session built without one).
func (s *session) processes() *contain.Scope {
	if rh, ok := s.host.(*reefHost); ok {
		return rh.procs
	}
	return nil
}

// end ends everything the session started: its PTYs are closed, every
// task is cancelled and
// waited for until ctx ends (ctx's error is returned if some are still
// running), then every process its commands started is killed, with every
// descendant of theirs, whatever group, session or parent it moved to, and
// the session's cgroup is removed. Afterwards the session starts no more
// tasks or processes. Shutdown calls it for every session; closing a
// session (lifecycle.go) does the same through the onClose hook that
// wireSession registers.
func (s *session) end(ctx context.Context) error {
	if s.ptys != nil {
		s.ptys.closeSession(s.key)
	}
	err := s.tasks.Close(ctx)
	s.processes().Close()
	return err
}
