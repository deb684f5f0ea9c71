package kernel

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// DefaultIdleFDs is the default of --idle-fds: the descriptors all
// sessions together keep open only for reuse. A session keeps at most
// twelve (four empty cgroup leaves of two descriptors, and four for the
// spare pipes of its next spawn), so 4,096 keeps the spawn fast path warm
// for about 340 sessions, while the 2,048 sessions --token-sessions and
// --owner-sessions allow would otherwise keep about 24,600, more than the
// reference machine's RLIMIT_NOFILE (20,000). It leaves at least three
// quarters of the descriptor table to connections, PTYs, running children
// and the journal. Sessions past it spawn as fast as a session's first
// spawn does.
const DefaultIdleFDs = 4096

// idleFDsShare is the largest part of RLIMIT_NOFILE the idle budget may
// take: a flag or default above a quarter of the table is cut to it at
// start (see clampIdleFDs).
const idleFDsShare = 4

// clampIdleFDs cuts l.IdleFDs to a quarter of the process's descriptor
// limit (RLIMIT_NOFILE's soft value, which the Go runtime has raised to
// the hard one), and returns a warning when it did; a limit it cannot read
// leaves the flag alone.
func clampIdleFDs(l *Limits) (warning string) {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == unix.RLIM_INFINITY {
		return ""
	}
	return clampIdleFDsTo(l, rl.Cur)
}

// clampIdleFDsTo is clampIdleFDs under a descriptor limit of nofile.
func clampIdleFDsTo(l *Limits, nofile uint64) (warning string) {
	most := int(min(nofile/idleFDsShare, 1<<30))
	if l.IdleFDs <= most {
		return ""
	}
	old := l.IdleFDs
	l.IdleFDs = max(most, 1)
	return fmt.Sprintf("--idle-fds %d is above a quarter of the %d descriptors this process may open (RLIMIT_NOFILE); using %d", old, nofile, l.IdleFDs)
}
