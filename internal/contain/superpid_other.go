//go:build !linux

package contain

// SupervisorPid is 0 off Linux, where no supervisor runs.
func (m *Manager) SupervisorPid() int { return 0 }
