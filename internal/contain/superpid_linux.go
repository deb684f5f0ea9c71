package contain

// SupervisorPid is the pid of the supervisor StartSupervisor started while
// it runs, 0 otherwise (no supervisor, or a nil Manager). The kernel keeps
// untrusted sessions away from it as from itself: its descriptor 3 is the
// pipe whose end tells it the kernel has gone.
func (m *Manager) SupervisorPid() int {
	if m == nil {
		return 0
	}
	return int(m.superPid.Load())
}
