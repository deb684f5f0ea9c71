package kernel

import (
	"flag"
	"fmt"
	"github.com/shoalgo/shoal/internal/cas"
	"strconv"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/events"
)

// Limits are the kernel's tunable bounds: the budgets a hostile principal
// runs into. Fixed bounds stay constants (limits.go and each package's
// limits.go); the ones an operator may size for a machine are fields here,
// each with a default in DefaultLimits and a flag in limitFlags. The limits
// table in docs/kernel.md lists both kinds.
type Limits struct {
	// Transport (see conn.go and admission.go).

	// FrameMemory bounds the read buffers of all connections together,
	// beyond the first proto.ReadBufferSize bytes each connection has.
	FrameMemory int64
	// FrameTimeout bounds the time from a frame's first byte to its
	// newline.
	FrameTimeout time.Duration
	// OutboxMemory bounds the frames queued for all connections together.
	OutboxMemory int64
	// MaxConns bounds the connections the kernel serves at once.
	MaxConns int
	// MaxPreAttachConns bounds the connections not yet attached; past it
	// the oldest of them is closed to admit a new one.
	MaxPreAttachConns int
	// MaxPrincipalConns bounds the connections attached as one token
	// principal (the kernel owner is not bounded).
	MaxPrincipalConns int

	// Event bus (see internal/events).

	// EventChannelMemory bounds the payload bytes one channel retains.
	EventChannelMemory int64
	// EventChannels bounds the user.* and task.N channels one session
	// keeps.
	EventChannels int
	// EventSessionMemory bounds the payload bytes one session's channels
	// retain together.
	EventSessionMemory int64
	// EventMemory bounds the payload bytes every channel retains
	// together.
	EventMemory int64

	// SessionsPerPrincipal bounds the sessions one token principal keeps
	// at once; attaching a further name is LEASH_DENIED (quota_exceeded,
	// budget "sessions_per_principal").
	SessionsPerPrincipal int
	// TokenSessions bounds the sessions all token principals keep
	// together (budget "token_sessions").
	TokenSessions int
	// OwnerSessions bounds the kernel owner's sessions. They are counted
	// apart from TokenSessions, so other principals cannot use up the
	// owner's room (budget "owner_sessions").
	OwnerSessions int
	// SessionIdle is how long a session with no attached connection, no
	// request in flight and no running task is kept before it is closed
	// and its resources released; zero keeps sessions forever.
	SessionIdle time.Duration

	// IdleFDs bounds the descriptors all sessions together keep open
	// only for reuse: their pools of empty cgroup leaves (two each, at
	// most contain's maxFreeLeaves per session) and the spare pipes of
	// their next spawn (four each). Past it a session keeps none: the
	// leaf is removed, the next spawn makes its pipes; nothing is refused
	// (idlefds.go). At start it is cut to a quarter of RLIMIT_NOFILE.
	IdleFDs int

	// LangTasks bounds the language tasks (spawn, `cmd &`, `{ … } &`, on
	// handlers, parallel branches) running in all sessions together;
	// PrincipalLangTasks bounds those of one token principal's sessions
	// together. Past either a start raises quota_exceeded naming
	// lang_tasks or principal_lang_tasks (see langtasks.go); each session
	// also runs at most eval.MaxLiveTasks.
	LangTasks          int
	PrincipalLangTasks int

	// Stored plans (see plans.go). SessionPlans bounds the plans one
	// session keeps, PrincipalPlans those of one principal's sessions
	// together (the owner's too), TokenPlans those of all token principals
	// together and PlanMemory their bytes (source and effects); past one,
	// exec mode "plan" is LEASH_DENIED (quota_exceeded, budget
	// session_plans, principal_plans, token_plans or plan_memory). A plan
	// not applied within PlanTTL expires: it is dropped and an approval
	// event says so.
	SessionPlans   int
	PrincipalPlans int
	TokenPlans     int
	PlanMemory     int64
	PlanTTL        time.Duration
	// PlanTombstones bounds the tombstones (refs of applied and expired
	// plans, which answer with the state they ended in) kept for one
	// principal; past it the oldest is forgotten (planstombs.go).
	PlanTombstones int
	// KernelPlanTombstones bounds the tombstones kept for all principals
	// together; past it the oldest is forgotten.
	KernelPlanTombstones int

	// PTYs (see ptys.go). SessionPTYs bounds the PTYs one session keeps
	// open, PrincipalPTYs those of one principal's sessions together (the
	// owner's too), KernelPTYs those of all sessions together, and
	// PTYCells the cells (cols × rows) of all their grids together: past
	// one, pty.open (or a resize past PTYCells) is LEASH_DENIED
	// (quota_exceeded, budget session_ptys, principal_ptys, kernel_ptys or
	// pty_cells) and nothing starts.
	SessionPTYs   int
	PrincipalPTYs int
	KernelPTYs    int
	PTYCells      int

	// Memory (see memory.go). SessionMemory bounds what one session's
	// values and captured output keep alive; KernelMemory bounds all
	// sessions together; MemoryLimit is the process's soft memory limit
	// (debug.SetMemoryLimit), near which the memory guard cancels the
	// evaluations of the largest consumer. 0 means unbounded.
	SessionMemory int64
	KernelMemory  int64
	MemoryLimit   int64
	// GCPercent is the collector's percent (debug.SetGCPercent) while the
	// live heap is small beside MemoryLimit (see tuneGC); 0 leaves the
	// runtime's (GOGC) alone.
	GCPercent int

	// Task output (see outspool.go). TaskOutputBytes bounds the output
	// one task's spool retains, PrincipalOutputBytes that of one
	// principal's tasks together and KernelOutputBytes that of every task
	// together; past one the oldest bytes (of the oldest spool) are
	// dropped and task.output counts them in dropped. OutputSpools bounds
	// the spools kept; past it the oldest is forgotten.
	TaskOutputBytes      int64
	PrincipalOutputBytes int64
	KernelOutputBytes    int64
	OutputSpools         int
	// Task records a state-directory kernel persists (taskstore.go):
	// TaskRecords in all, PrincipalTaskRecords per principal; past one
	// the oldest ended records go, with their spools.
	TaskRecords          int
	PrincipalTaskRecords int
	// CheckpointBytes bounds one session's checkpoint of its bindings
	// (checkpoint.go); bindings past it are not kept and are named in
	// session.attach's restored.dropped.
	CheckpointBytes int64

	// The journal's disk budget (see retention.go). JournalMaxBytes bounds
	// the journal database's live pages and the blob store's files
	// together; over it the oldest finished rows are pruned and the blobs
	// no row names removed. 0: unbounded. JournalMaxOutput bounds one
	// stored output (at most cas.MaxBlobBytes); a longer one is stored as
	// its prefix, its row keeping the whole length.
	JournalMaxBytes  int64
	JournalMaxOutput int64
	// The blob store's small-blob pack (cas.Options): how many blobs of at
	// most cas.SmallBlobBytes it keeps, indexed in memory, and how long
	// the file may grow; past either, small blobs are stored as files.
	// At most cas.MaxSmallBlobs and cas.MaxPackBytes.
	JournalSmallBlobs int
	JournalPackBytes  int64

	// The trash's retention (see trash.go): TrashMaxBytes bounds the disk
	// one principal's trash takes, TrashTotalBytes all trashes together,
	// TrashMaxAge how long an item is kept; past one the oldest items are
	// removed. 0: no such bound.
	TrashMaxBytes   int64
	TrashTotalBytes int64
	TrashMaxAge     time.Duration
	TrashMaxEntries int
}

// DefaultLimits returns the limits sized for the reference machine class
// (2 cores, 24 GiB).
func DefaultLimits() Limits {
	ev := events.DefaultLimits()
	return Limits{
		FrameMemory:       256 << 20,
		FrameTimeout:      10 * time.Second,
		OutboxMemory:      256 << 20,
		MaxConns:          1024,
		MaxPreAttachConns: 128,
		MaxPrincipalConns: 256,

		EventChannelMemory: ev.ChannelBytes,
		EventChannels:      ev.ScopeChannels,
		EventSessionMemory: ev.ScopeBytes,
		EventMemory:        ev.TotalBytes,

		SessionsPerPrincipal: 32,
		TokenSessions:        1024,
		OwnerSessions:        1024,
		SessionIdle:          10 * time.Minute,
		IdleFDs:              DefaultIdleFDs,
		LangTasks:            4096,
		PrincipalLangTasks:   512,
		SessionPlans:         64,
		PrincipalPlans:       256,
		TokenPlans:           4096,
		PlanMemory:           64 << 20,
		PlanTTL:              time.Hour,
		PlanTombstones:       1024,
		KernelPlanTombstones: MaxPlanTombstones,
		SessionPTYs:          16,
		PrincipalPTYs:        64,
		KernelPTYs:           256,
		PTYCells:             2 << 20,
		SessionMemory:        DefaultSessionMemory,
		KernelMemory:         DefaultKernelMemory,
		MemoryLimit:          DefaultMemoryLimit,
		GCPercent:            DefaultGCPercent,
		TaskOutputBytes:      8 << 20,
		PrincipalOutputBytes: 64 << 20,
		KernelOutputBytes:    256 << 20,
		OutputSpools:         512,
		TaskRecords:          4096,
		PrincipalTaskRecords: 1024,
		CheckpointBytes:      1 << 20,
		JournalMaxBytes:      1 << 30,
		JournalMaxOutput:     16 << 20,
		JournalSmallBlobs:    cas.MaxSmallBlobs,
		JournalPackBytes:     cas.MaxPackBytes,
		TrashMaxBytes:        2 << 30,
		TrashTotalBytes:      8 << 30,
		TrashMaxAge:          7 * 24 * time.Hour,
		TrashMaxEntries:      200_000,
	}
}

// limitFlag is one command-line flag that sets a field of Limits.
type limitFlag struct {
	name, usage string
	zero        zeroMeans // what the field left at zero means
	// one of these is set
	size     func(l *Limits) *int64
	count    func(l *Limits) *int
	duration func(l *Limits) *time.Duration
}

// zeroMeans is what a Limits field left at zero (as a Config that sets
// only some fields leaves the rest) stands for.
type zeroMeans uint8

const (
	zeroIsDefault zeroMeans = iota // its DefaultLimits value
	zeroIsNone                     // no bound (documented per flag)
	zeroIsInvalid                  // nothing: the bound must be at least 1
)

// value is f's field in l as a number (a duration in nanoseconds).
func (f limitFlag) value(l *Limits) int64 {
	switch {
	case f.size != nil:
		return *f.size(l)
	case f.count != nil:
		return int64(*f.count(l))
	}
	return int64(*f.duration(l))
}

// copyFrom sets f's field in l to its value in src.
func (f limitFlag) copyFrom(l, src *Limits) {
	switch {
	case f.size != nil:
		*f.size(l) = *f.size(src)
	case f.count != nil:
		*f.count(l) = *f.count(src)
	default:
		*f.duration(l) = *f.duration(src)
	}
}

// settleLimits checks every field of l against its flag's rules and gives
// the fields left at zero that stand for their default that default. It
// refuses a negative bound, and a zero one that cannot be zero.
func settleLimits(l *Limits) error {
	d := DefaultLimits()
	for _, f := range limitFlags {
		n := f.value(l)
		switch {
		case f.zero == zeroIsInvalid && n < 1:
			return fmt.Errorf("kernel: --%s must be at least 1, not %d", f.name, n)
		case n < 0:
			return fmt.Errorf("kernel: --%s must not be negative", f.name)
		case n == 0 && f.zero == zeroIsDefault:
			f.copyFrom(l, &d)
		}
	}
	return checkRetentionLimits(l)
}

// limitFlags is the table of tunable bounds and their flags.
var limitFlags = []limitFlag{
	{name: "frame-memory", usage: "read buffers of all connections together (bytes, or with KiB, MiB, GiB)",
		size: func(l *Limits) *int64 { return &l.FrameMemory }},
	{name: "frame-timeout", usage: "time a request frame may take from its first byte to its newline",
		duration: func(l *Limits) *time.Duration { return &l.FrameTimeout }},
	{name: "outbox-memory", usage: "frames queued for all connections together",
		size: func(l *Limits) *int64 { return &l.OutboxMemory }},
	{name: "max-conns", usage: "connections served at once",
		count: func(l *Limits) *int { return &l.MaxConns }},
	{name: "max-preattach-conns", usage: "connections not yet attached (the oldest is closed to admit another)",
		count: func(l *Limits) *int { return &l.MaxPreAttachConns }},
	{name: "max-principal-conns", usage: "connections attached as one token principal",
		count: func(l *Limits) *int { return &l.MaxPrincipalConns }},
	{name: "event-channel-memory", usage: "event payload bytes one channel retains (oldest dropped)",
		size: func(l *Limits) *int64 { return &l.EventChannelMemory }},
	{name: "event-channels", usage: "user.* and task.N event channels one session keeps",
		count: func(l *Limits) *int { return &l.EventChannels }},
	{name: "event-session-memory", usage: "event payload bytes one session's channels retain (oldest dropped)",
		size: func(l *Limits) *int64 { return &l.EventSessionMemory }},
	{name: "event-memory", usage: "event payload bytes all channels retain (oldest of the largest session dropped)",
		size: func(l *Limits) *int64 { return &l.EventMemory }},

	{name: "principal-sessions", zero: zeroIsInvalid, usage: "sessions one token principal may keep at once",
		count: func(l *Limits) *int { return &l.SessionsPerPrincipal }},
	{name: "token-sessions", zero: zeroIsInvalid, usage: "sessions all token principals may keep together",
		count: func(l *Limits) *int { return &l.TokenSessions }},
	{name: "owner-sessions", zero: zeroIsInvalid, usage: "sessions the kernel owner may keep (counted apart from token principals')",
		count: func(l *Limits) *int { return &l.OwnerSessions }},
	{name: "idle-fds", usage: "descriptors all sessions may keep open only for reuse (empty cgroup leaves, spare pipes; at most a quarter of RLIMIT_NOFILE)",
		count: func(l *Limits) *int { return &l.IdleFDs }},
	{name: "lang-tasks", usage: "language tasks (spawn, &, on handlers, parallel branches) all sessions may run together",
		count: func(l *Limits) *int { return &l.LangTasks }},
	{name: "principal-lang-tasks", usage: "language tasks one token principal's sessions may run together",
		count: func(l *Limits) *int { return &l.PrincipalLangTasks }},
	{name: "session-plans", usage: "stored plans one session may keep",
		count: func(l *Limits) *int { return &l.SessionPlans }},
	{name: "principal-plans", usage: "stored plans one principal's sessions may keep together",
		count: func(l *Limits) *int { return &l.PrincipalPlans }},
	{name: "token-plans", usage: "stored plans all token principals may keep together",
		count: func(l *Limits) *int { return &l.TokenPlans }},
	{name: "plan-memory", usage: "bytes of source and effects the stored plans of all token principals may keep",
		size: func(l *Limits) *int64 { return &l.PlanMemory }},
	{name: "plan-ttl", usage: "how long a stored plan lives unapplied before it expires",
		duration: func(l *Limits) *time.Duration { return &l.PlanTTL }},
	{name: "plan-tombstones", usage: "refs of applied and expired plans kept per principal to say so (oldest forgotten)",
		count: func(l *Limits) *int { return &l.PlanTombstones }},
	{name: "kernel-plan-tombstones", usage: "refs of applied and expired plans kept for all principals together (oldest forgotten; 0: 16384)",
		count: func(l *Limits) *int { return &l.KernelPlanTombstones }},
	{name: "task-output", usage: "output bytes one task's spool retains for task.output (oldest dropped)",
		size: func(l *Limits) *int64 { return &l.TaskOutputBytes }},
	{name: "principal-output", usage: "output bytes the spools of one principal's tasks retain together (oldest dropped)",
		size: func(l *Limits) *int64 { return &l.PrincipalOutputBytes }},
	{name: "kernel-output", usage: "output bytes the spools of all tasks retain together (oldest dropped)",
		size: func(l *Limits) *int64 { return &l.KernelOutputBytes }},
	{name: "output-spools", usage: "task output spools kept (the oldest is forgotten)",
		count: func(l *Limits) *int { return &l.OutputSpools }},
	{name: "task-records", usage: "task records a state-directory kernel persists across restarts (the oldest ended go first)",
		count: func(l *Limits) *int { return &l.TaskRecords }},
	{name: "principal-task-records", usage: "persisted task records of one principal (the oldest ended go first)",
		count: func(l *Limits) *int { return &l.PrincipalTaskRecords }},
	{name: "checkpoint-bytes", usage: "bytes of bindings one session's restart checkpoint keeps (bindings past it are dropped and named)",
		size: func(l *Limits) *int64 { return &l.CheckpointBytes }},
	{name: "session-ptys", usage: "PTYs one session may keep open",
		count: func(l *Limits) *int { return &l.SessionPTYs }},
	{name: "principal-ptys", usage: "PTYs one principal's sessions may keep open together",
		count: func(l *Limits) *int { return &l.PrincipalPTYs }},
	{name: "kernel-ptys", usage: "PTYs all sessions may keep open together",
		count: func(l *Limits) *int { return &l.KernelPTYs }},
	{name: "pty-cells", usage: "cells (cols × rows) of the grids of all open PTYs together",
		count: func(l *Limits) *int { return &l.PTYCells }},
	{name: "session-idle", zero: zeroIsNone, usage: "close a session with no connection, request or running task after this long (0: never)",
		duration: func(l *Limits) *time.Duration { return &l.SessionIdle }},
	{name: "session-memory", zero: zeroIsNone, usage: "bytes one session's values and captured output may keep alive (0: unbounded)",
		size: func(l *Limits) *int64 { return &l.SessionMemory }},
	{name: "kernel-memory", zero: zeroIsNone, usage: "bytes all sessions' values and captured output may keep alive together (0: unbounded)",
		size: func(l *Limits) *int64 { return &l.KernelMemory }},
	{name: "memory-limit", zero: zeroIsNone, usage: "the kernel process's soft memory limit; near it the largest consumer's evaluations are cancelled (0: none)",
		size: func(l *Limits) *int64 { return &l.MemoryLimit }},
	{name: "gc-percent", usage: "the collector's GC percent while the live heap is small beside --memory-limit (0: GOGC's)",
		count: func(l *Limits) *int { return &l.GCPercent }},
	{name: "journal-max-bytes", zero: zeroIsNone, usage: "bytes the journal database's live pages and its blobs may take together; over it the oldest finished rows are pruned (0: unbounded)",
		size: func(l *Limits) *int64 { return &l.JournalMaxBytes }},
	{name: "journal-max-output", usage: "bytes of one exec output the journal stores (at most 64 MiB); a longer one is stored cut, its row keeping its whole length",
		size: func(l *Limits) *int64 { return &l.JournalMaxOutput }},
	{name: "journal-small-blobs", usage: "small blobs (at most 512 bytes) the blob store keeps in its pack, indexed in memory (at most 65536); past it they are stored as files",
		count: func(l *Limits) *int { return &l.JournalSmallBlobs }},
	{name: "journal-pack-bytes", usage: "bytes the blob store's small-blob pack may grow to (at most 32 MiB); past it small blobs are stored as files",
		size: func(l *Limits) *int64 { return &l.JournalPackBytes }},
	{name: "trash-max-bytes", zero: zeroIsNone, usage: "disk one principal's trash (what rm removed) may take; past it its oldest items are removed (0: unbounded)",
		size: func(l *Limits) *int64 { return &l.TrashMaxBytes }},
	{name: "trash-total-bytes", zero: zeroIsNone, usage: "disk all principals' trashes may take together; past it the oldest items are removed (0: unbounded)",
		size: func(l *Limits) *int64 { return &l.TrashTotalBytes }},
	{name: "trash-max-age", zero: zeroIsNone, usage: "how long the trash keeps what rm removed (0: until a byte bound needs the room)",
		duration: func(l *Limits) *time.Duration { return &l.TrashMaxAge }},
	{name: "trash-max-entries", zero: zeroIsNone, usage: "files, directories and links all trashes may keep together, counted newest first; past it the older items are removed (0: unbounded)",
		count: func(l *Limits) *int { return &l.TrashMaxEntries }},
}

// report returns every tunable bound in l by flag name, for kernel.info:
// sizes in bytes, counts as they are, durations in milliseconds.
func (l *Limits) report() map[string]int64 {
	out := make(map[string]int64, len(limitFlags))
	for _, f := range limitFlags {
		switch {
		case f.size != nil:
			out[f.name] = *f.size(l)
		case f.count != nil:
			out[f.name] = int64(*f.count(l))
		case f.duration != nil:
			out[f.name] = f.duration(l).Milliseconds()
		}
	}
	return out
}

// RegisterLimitFlags adds a flag for every tunable bound to fs; parsing
// writes into l, which should hold DefaultLimits() first.
func RegisterLimitFlags(fs *flag.FlagSet, l *Limits) {
	for _, f := range limitFlags {
		switch {
		case f.size != nil:
			fs.Var(sizeFlag{f.size(l)}, f.name, f.usage)
		case f.count != nil:
			fs.IntVar(f.count(l), f.name, *f.count(l), f.usage)
		case f.duration != nil:
			fs.DurationVar(f.duration(l), f.name, *f.duration(l), f.usage)
		}
	}
}

// sizeFlag parses a byte size: a plain number of bytes or one with a
// suffix KiB, MiB, GiB (also K, M, G; powers of 1024).
type sizeFlag struct{ p *int64 }

func (f sizeFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.FormatInt(*f.p, 10)
}

func (f sizeFlag) Set(s string) error {
	n, err := ParseSize(s)
	if err != nil {
		return err
	}
	*f.p = n
	return nil
}

// ParseSize parses a byte count such as "4096", "64KiB", "2GiB" or "512M".
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("bad size %q: want bytes, or a number with KiB, MiB or GiB", s)
	}
	return n * mult, nil
}
