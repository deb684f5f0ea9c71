// Package contain keeps every process a program starts, and everything
// those processes start in turn, where it can be found and ended: when the
// work that started it is cancelled, when the session it belongs to
// closes, and when the process that started it exits, even by SIGKILL.
//
// It combines the mechanisms the machine offers, detected by New:
//
//   - Pdeathsig: every direct child gets SIGKILL when this process dies.
//     Linux sends the signal when the forking thread exits, so children
//     are forked from one locked OS thread that never exits while a child
//     it forked lives, or (RunProcess, whose caller waits for the child
//     itself) from the caller's thread, locked until the child is reaped.
//   - Subreaper: this process becomes a child subreaper, so descendants
//     whose parent exits are re-parented here rather than to init, stay
//     findable, and are reaped when they exit (no zombies accumulate):
//     on each SIGCHLD, or, with a cgroup v2 leaf per process tree, when
//     a tree's child is reaped and within about a second (startReaper).
//   - A walk of descendants through /proc (parent pids), which finds
//     processes that left their process group or session (setsid).
//   - A cgroup per started process tree, under one cgroup per scope
//     (session), under one per Manager, where the machine lets this
//     process create them: cgroup v2 (placed atomically at clone, ended
//     with cgroup.kill) or a v1 freezer or pids hierarchy (placed just
//     after start, ended by freezing and killing every member). A cgroup
//     is the one mechanism a double fork plus setsid cannot leave.
//   - A supervisor: a copy of the program, started as a child holding the
//     read end of a pipe, which ends the Manager's cgroup (or, without
//     one, the descendants it last saw) when the pipe closes because this
//     process died.
//
// Features reports which of these are active. A Scope is one session's
// share; a Proc is one started child and its tree.
package contain

import "time"

// Features reports which containment mechanisms are active. It is the
// containment object of kernel.info.
type Features struct {
	// Subreaper: this process is a child subreaper and reaps the orphans
	// it inherits.
	Subreaper bool `json:"subreaper"`
	// Pdeathsig: direct children are killed when this process dies.
	Pdeathsig bool `json:"pdeathsig"`
	// Cgroup is "v2:<dir>" or "v1:<dir>" (the Manager's cgroup
	// directory), or "none".
	Cgroup string `json:"cgroup"`
	// Walk: descendants are found through /proc, whatever their process
	// group or session.
	Walk bool `json:"walk"`
	// Supervisor: a supervisor process ends what is left when this
	// process dies, SIGKILL included.
	Supervisor bool `json:"supervisor"`
}

// Config chooses what New sets up.
type Config struct {
	// Subreaper makes this process a child subreaper and starts reaping
	// the orphans it inherits. It changes the whole process: set it in a
	// long-lived server, not in a library user.
	Subreaper bool
	// Cgroups tries to create a cgroup hierarchy for the Manager.
	Cgroups bool
	// Name prefixes the Manager's cgroup directory (default "shoal");
	// the directory is <Name>-<pid>.
	Name string
}

// Bounds on the work containment does; fixed.
const (
	// MaxKnownPerProc bounds the descendants remembered per started
	// process when no cgroup tracks them.
	MaxKnownPerProc = 4096
	// PollInterval is how often descendants are collected when no cgroup
	// tracks them (by the Manager, and by the supervisor).
	PollInterval = 250 * time.Millisecond
	// DrainTimeout bounds how long Close waits for killed processes to be
	// gone before it removes their cgroups.
	DrainTimeout = 2 * time.Second
	// killRounds bounds the kill sweeps one Kill or Close makes.
	killRounds = 20
)

// SupervisorCommand is the first argument with which a program runs the
// supervisor (see Manager.StartSupervisor and RunSupervisor).
const SupervisorCommand = "__shoal_contain_supervisor"

// SupervisorName is the supervisor's process name (what ps, top and pgrep
// show): the kernel keeps 15 bytes of it, "shoal-superviso", as it keeps
// "systemd-journal" of systemd-journald.
const SupervisorName = "shoal-supervisor"

// Thread runs body on an OS thread of its own, made ready first (the
// sandbox confines it: sandbox.Confinement.Run), and returns once body
// has returned; or, when the thread cannot be made ready, returns the
// error without calling body. The thread must end when body returns and
// run nothing else: a child forked from it is Pdeathsig'd when it ends,
// and inherits whatever made it ready.
type Thread func(body func()) error
