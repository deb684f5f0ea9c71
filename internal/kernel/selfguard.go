package kernel

import "os"

// selfPids are the processes a session that is not the kernel owner's may
// never reach through /proc, whatever its grants: the kernel itself (its
// builtins run here, so /proc/self is the kernel) and the supervisor it
// started, whose descriptor 3 ends it when written or closed. The
// session's gate refuses them (host.GuardSelf, wired in grants.go).
func (s *Server) selfPids() []int {
	return []int{os.Getpid(), s.procs.SupervisorPid()}
}
