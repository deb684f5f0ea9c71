// Package host is the only code that touches the operating system on behalf
// of evaluation: files, process spawn and capture, the clock and the
// environment. Every operation names its effect and asks the session's
// Authorizer before it acts; a refusal is returned as an error and nothing is
// touched.
//
// Paths given to a Host are absolute; the evaluator resolves relative paths
// against the session's working directory. Environments are passed
// explicitly, so a Host holds no per-session state.
package host

import (
	"context"
	"io"
	"io/fs"
	"time"
)

// Effect names the kind of thing an operation does to the world.
type Effect string

// The effect vocabulary shared with policy (leash).
const (
	FSRead     Effect = "fs_read"
	FSWrite    Effect = "fs_write"
	FSDelete   Effect = "fs_delete"
	ProcSpawn  Effect = "proc_spawn"
	NetConnect Effect = "net_connect"
	EnvRead    Effect = "env_read"
	EnvWrite   Effect = "env_write"
	// Clock reads the wall clock (Host.Clock); its op has no target.
	Clock Effect = "time"
	// SysRead reads a fact about the machine or the host process, named
	// by the op's target (one of FactNames): see Host.Facts.
	SysRead Effect = "sys_read"
)

// Op describes one concrete operation for authorisation.
type Op struct {
	Effect Effect
	Target string   // absolute path, or program path for proc_spawn
	Argv   []string // for proc_spawn
	// Real is Target with its symlinks resolved, filled in by the OS host
	// for fs and proc_spawn ops before the Authorizer sees them: the
	// longest existing prefix is resolved and the rest appended, and an op
	// that does not follow a final symlink (Lstat, Remove, Rename's source,
	// Symlink's and Link's new name) resolves only the parent. A gate must
	// judge both Target and Real. Empty when not resolved (a host gated by
	// AllowAll or DenyAll resolves nothing: neither looks at paths).
	Real string
	// Tree marks an op that acts on the whole tree beneath a directory
	// Target (a recursive Remove or Copy of a directory, a recursive
	// Watch): a gate should allow it only when its grant covers every
	// path beneath Target, not just Target.
	Tree bool
}

// Authorizer decides whether an operation may proceed. A non-nil error is a
// refusal and is returned to the caller unchanged (it should be a
// *value.Error-compatible denial; see DeniedError).
type Authorizer interface {
	Authorize(ctx context.Context, op Op) error
}

// Spawn describes a process to run. Argv[0] is an absolute program path.
type Spawn struct {
	Argv  []string
	Dir   string
	Env   []string  // complete environment, KEY=VALUE
	Stdin io.Reader // nil means empty stdin
	// Stream, when non-nil, receives stdout/stderr as they are produced
	// (statement-position commands); capture still happens up to the bound.
	StreamOut io.Writer
	StreamErr io.Writer
	// MaxCapture bounds bytes kept in memory per stream; 0 means the default.
	MaxCapture int64
	// NoSpill drops stdout past MaxCapture instead of spilling it to a
	// temporary file (Result.Truncated still reports the loss), for callers
	// that have no use for the full stream.
	NoSpill bool
}

// Result is what a finished process left behind.
type Result struct {
	Status    *int   // nil when killed by a signal
	Signal    string // "SIGKILL" etc., "" when exited normally
	Stdout    []byte
	Stderr    []byte
	Truncated bool   // output exceeded MaxCapture; see SpillPath
	SpillPath string // full stdout spilled to a temp file, when truncated
	Pid       int
	Dur       time.Duration
	// Stopped is set by RunTerminal when the child stopped (Ctrl-Z)
	// instead of ending: the caller owns the job and must wait for it
	// (TerminalJob.Wait); Status and Signal are then unset.
	Stopped *TerminalJob
}

// Host is the gate between evaluation and the operating system.
type Host interface {
	Stat(ctx context.Context, path string) (fs.FileInfo, error)
	Lstat(ctx context.Context, path string) (fs.FileInfo, error)
	// ReadFile reads a whole file, failing with ErrTooLarge past the
	// host's read bound.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// ReadPrefix reads at most n bytes from the start of a file and reports
	// whether it goes on.
	ReadPrefix(ctx context.Context, path string, n int64) (data []byte, more bool, err error)
	// ReadEach reads a whole file of any size in order, handing fn one
	// chunk at a time (the slice is reused after fn returns), for digests
	// of files past the read bound; an error from fn stops it.
	ReadEach(ctx context.Context, path string, fn func(chunk []byte) error) error
	WriteFile(ctx context.Context, path string, data []byte, appendTo bool) error
	ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error)
	MkdirAll(ctx context.Context, path string) error
	Remove(ctx context.Context, path string, recursive bool) error
	Rename(ctx context.Context, from, to string) error
	Copy(ctx context.Context, from, to string, recursive bool) error
	Symlink(ctx context.Context, target, link string) error
	// Link creates link as a hard link to the existing file target.
	Link(ctx context.Context, target, link string) error
	// Chtimes sets the access and modification times of path.
	Chtimes(ctx context.Context, path string, atime, mtime time.Time) error
	// Watch follows changes under a file or directory.
	Watch(ctx context.Context, root string, recursive bool) (Watcher, error)
	// Tail follows the lines appended to a file.
	Tail(ctx context.Context, path string, fromStart bool) (Tailer, error)
	// Glob expands pattern relative to dir, sorted; hidden includes dot files.
	Glob(ctx context.Context, dir, pattern string, hidden bool) ([]string, error)
	// LookPath resolves a program name against PATH from env.
	LookPath(ctx context.Context, name string, env []string) (string, error)
	// Run spawns a process in its own process group, waits for it, and kills
	// the whole group when ctx is cancelled.
	Run(ctx context.Context, s *Spawn) (*Result, error)
	// RunTerminal runs a process in the foreground of the terminal open on
	// descriptor tty, its stdio connected to it and nothing captured. A
	// child that stops (Ctrl-Z) is returned as Result.Stopped, still
	// alive, and the caller's group has the terminal again.
	RunTerminal(ctx context.Context, s *Spawn, tty int) (*Result, error)
	// ReadTerminalLine writes prompt to the terminal open on descriptor
	// tty and reads one line typed there (at most max bytes), in line
	// mode whatever mode the terminal was in.
	ReadTerminalLine(ctx context.Context, tty int, prompt string, max int) (string, error)
	// Environ is the process environment the session starts from.
	Environ(ctx context.Context) ([]string, error)
	// Clock reads the wall clock as the program sees it (now, today,
	// every, ago, from_now), asking the time effect first.
	Clock(ctx context.Context) (time.Time, error)
	// Now is the wall clock for bookkeeping the program does not read as
	// a time of its own (measuring intervals, file times set by touch,
	// event stamps); it is not gated. Values that are times come from
	// Clock.
	Now() time.Time
	// Facts reports one fact about the machine or the host process (see
	// FactNames), asking sys_read for it by name.
	Facts(ctx context.Context, fact string) (Facts, error)
	// HTTP performs one HTTP request (http.go), asking net_connect of
	// "host:port" for the URL and for every redirect it follows.
	HTTP(ctx context.Context, r *HTTPRequest) (*HTTPResponse, error)
	// Secret reads a named secret from the host's secret store
	// (secret.go), asking secret_use of the name.
	Secret(ctx context.Context, name string) ([]byte, error)
}

// Facts are facts about the machine and the host process, read through
// Host.Facts (sys_read by fact name), which fills only the field of the
// fact asked for. A field the platform cannot supply is left at its zero
// value and its Known flag, where there is one, false.
type Facts struct {
	Hostname    string        // "" when unknown
	Pid         int           // the host process id
	Username    string        // from the user database; "" when unknown
	Uptime      time.Duration // time since boot, when UptimeKnown
	UptimeKnown bool
	OS          string // Go's GOOS: "linux", "darwin", ...
	Arch        string // Go's GOARCH: "amd64", "arm64", ...
	CPUs        int    // usable CPUs, at least 1
}
