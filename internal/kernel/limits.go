package kernel

import "time"

// Bounds used by the kernel, set in one place.
const (
	// MaxInflightPerConn bounds the requests one connection may have
	// running at once; the connection's reader waits for a free slot.
	MaxInflightPerConn = 16

	// ReplyWindowFrames and ReplyWindowBytes bound the answers queued for
	// one connection and not yet written (flow.go), each counted as its
	// bytes plus OutboxFrameCost. An answer past them waits for the peer
	// to read; its request keeps its running slot, so once all
	// MaxInflightPerConn slots wait the connection's reader stops reading.
	// An empty window always takes one answer, however large. The window
	// is deep enough for a client to write 10,000 small requests before
	// reading any answer.
	ReplyWindowFrames = 16384
	ReplyWindowBytes  = 4 << 20

	// WatchDrainWait bounds how long a watched exec (exec watch:true)
	// waits, once its task's work is done, for the events its task
	// published to be queued to the client ahead of its answer; a client
	// that reads too slowly for that loses the rest of them (the answer
	// carries the output anyway).
	WatchDrainWait = time.Second

	// OutboxFrameCost is what a queued frame is counted beyond its bytes,
	// in the reply window, the outbox's own bound and the kernel-wide
	// outbound budget: about what holding it costs (its queue entry, its
	// buffer's header).
	OutboxFrameCost = 64

	// OutboxFrames is the number of frames queued for one connection:
	// answers take at most ReplyWindowFrames of them, event notifications
	// at most EventOutboxShare, and the rest is kept for notices such as
	// session.detached. A notice that finds the queue full closes the
	// connection. The queue holds only what is queued.
	OutboxFrames = ReplyWindowFrames + EventOutboxShare + 64

	// MaxTranscript bounds the values one session keeps addressable as
	// out:N; the oldest is dropped first.
	MaxTranscript = 4096

	// MaxTranscriptBytes bounds the approximate memory of the values one
	// session keeps addressable; the oldest are dropped first, the newest
	// is always kept.
	MaxTranscriptBytes = 256 << 20

	// ShutdownGrace is how long cancelled in-flight work may take to wind
	// down after SIGINT or SIGTERM before it is abandoned.
	ShutdownGrace = 3 * time.Second

	// ShutdownDeadline is when, after SIGINT or SIGTERM, shoal-kernel
	// exits whatever is still running, killing every process its sessions
	// started (the contract allows 5 s).
	ShutdownDeadline = 4500 * time.Millisecond

	// ShutdownBackstop is when, after SIGINT or SIGTERM, the supervisor
	// kills a kernel that has not managed to exit by itself.
	ShutdownBackstop = 4800 * time.Millisecond

	// HandoffDelay is how long a request may run on the goroutine that
	// read it before another goroutine takes over reading the connection
	// (lead.go): the longest a task.cancel, a client call's reply or a
	// pipelined request sent meanwhile waits to be read.
	HandoffDelay = time.Millisecond

	// HandoffFallback bounds the same wait while an exec runs Go code of
	// the kernel's that neither computes in the evaluator nor waits where
	// the evaluator or the exec's turn waits (e.g. a journal commit): only
	// a timer this far ahead is armed for it (handtimer.go). Five of the
	// host's 4 ms ticks: the runtime's poller blocks with a timeout under
	// one tick only in the last fifth of the timer's period (an armed
	// timer's deadline comes nearer as the connection works).
	HandoffFallback = 20 * time.Millisecond

	// DrainGrace is how long a connection whose peer stopped sending
	// lets its in-flight requests finish before cancelling them.
	DrainGrace = 5 * time.Second

	// FlushTimeout bounds how long a closing connection waits for its
	// queued frames to be written.
	FlushTimeout = 2 * time.Second

	// MaxRawBytes bounds the content of one value.get raw response.
	MaxRawBytes = 1 << 20

	// MaxRender bounds a render string in bytes, as encoded in its JSON
	// string (escapes counted).
	MaxRender = 64 << 10

	// MaxErrorText bounds the message and the hint of a RAISED answer,
	// as encoded; the transcript keeps the error whole.
	MaxErrorText = 4 << 10
	// RenderWidth is the terminal width, in columns, a render is fitted to.
	RenderWidth = 80

	// SourceWorkers bounds the parse and explain requests working on their
	// sources at once, kernel-wide (others wait their turn): each holds a
	// tree of at most syntax.MaxNodes nodes and an answer of at most
	// proto.MaxFrame bytes.
	SourceWorkers = 4

	// StaleDialTimeout bounds the probe that tells a live listener from a
	// stale socket file.
	StaleDialTimeout = time.Second
)

// Elision defaults and the hard cap (see ElideLimits).
const (
	DefaultMaxBytes    = 8 << 10
	DefaultMaxRows     = 100
	DefaultMaxItems    = 500
	DefaultMaxBytesRaw = 4 << 10
	HardCap            = 64 << 10
	PreviewItems       = 5
	PreviewChars       = 256
	RenderHeadLines    = 10
)

// Session lifecycle and token bounds (the tunable ones are in Limits).
const (
	// TokenRecheck is how often the tokens of attached connections are
	// checked against the store; with the store's own re-read interval it
	// bounds the time from a revocation or an expiry to the cut well under
	// a second.
	TokenRecheck = 250 * time.Millisecond

	// sessionCloseWait bounds how long closing a session waits for its
	// task registry to shut (it has no running tasks when closed for
	// idleness).
	sessionCloseWait = 5 * time.Second

	// storeLogEvery bounds how often one unchanged store problem is
	// logged.
	storeLogEvery = time.Minute
)

// Journal and blob bounds (journal.go; docs/kernel.md, "Journal and blobs").
const (
	// journal.query's default and largest limit are the journal's
	// (journal.DefaultQueryLimit, journal.MaxQueryLimit); a row keeps at
	// most journal.MaxSrcBytes of source (cut at a UTF-8 boundary) and an
	// AST of at most journal.MaxASTBytes (null past it).

	// MaxBlobGet is the most blob content one blob.get answers.
	MaxBlobGet = 1 << 20

	// MaxKnownBlobs bounds the hashes the kernel remembers having stored
	// this run (so a repeated output is not rewritten); cleared when full.
	MaxKnownBlobs = 4096

	// MaxJournalValue bounds the whole wire encoding of a value the
	// journal keeps when its answer was elided, so that value.get can
	// drill into it after a restart; a larger value keeps only its
	// elided answer (journalvalue.go).
	MaxJournalValue = 1 << 20

	// ReplayPageRows is how many journal rows one database read of an
	// events replay fetches; ReplayQueries bounds such reads running at
	// once, kernel-wide (their rows hold whole sources and ASTs).
	ReplayPageRows = 16
	ReplayQueries  = 2

	// ReplayBatchBytes bounds the event payloads one subscription holds
	// from the database, waiting for its connection to take them (at
	// most events.ReplayBatch events).
	ReplayBatchBytes = 256 << 10

	// ReplayReadBytes bounds the event payloads one events.read rebuilds
	// from the database (the newest kept), beside the ring's part, so the
	// answer stays well inside a frame.
	ReplayReadBytes = 4 << 20
)

// BlobSyncInterval is how often the blobs the journal stored reach the disk
// (one syncfs, blobSyncLoop): a blob survives the kernel's death as soon as
// it is written, and a power loss after at most this long.
const BlobSyncInterval = 500 * time.Millisecond

// The journal's disk budget (retention.go; docs/kernel.md, "Journal and
// blobs"): the tunable bounds are Limits.JournalMaxBytes and
// Limits.JournalMaxOutput; these fix how it is enforced.
const (
	// A check of the budget is due once the bytes written since the last
	// one reach a RetentionHeadroomShare-th of the headroom that check
	// measured (the budget less the state), and at least every
	// RetentionMinCheckBytes; and every RetentionInterval. The bytes are
	// the outputs stored (exactly) and, for each finished row, its
	// source, AST and effects plus RetentionRowBytes (the row's other
	// columns, its index entries and its intent-log frame: an estimate
	// that TestRetentionRowEstimate holds above what rows take). So a
	// state far under the budget is checked rarely, and one near it (or
	// over it) every 128 KiB: about every 32 small rows.
	RetentionHeadroomShare = 4
	RetentionRowBytes      = 4 << 10
	RetentionMinCheckBytes = 32 * RetentionRowBytes
	RetentionInterval      = 30 * time.Second
	// RetentionLowWater is the share of the budget, in percent, a pass
	// prunes down to once the state exceeds the budget, so that the next
	// rows do not each start a pass.
	RetentionLowWater = 75
	// RetentionWALShare: a WAL file past this share of the budget (an
	// eighth) is checkpointed and truncated by the next check.
	RetentionWALShare = 8
	// RetentionMaxRounds bounds the prune-and-sweep rounds of one pass
	// and RetentionScanRows the rows one round looks through to place its
	// cut.
	RetentionMaxRounds = 8
	RetentionScanRows  = 4096
	// RetentionRemoveBatch is how many blobs one hold of the retention
	// lock judges and removes after a prune: stores wait at most that.
	RetentionRemoveBatch = 256
)

// TaskOutputTail is how much of a running exec task's output task.get
// shows: the last 4 KiB of what it keeps (MaxExecOutput).
const TaskOutputTail = 4 << 10

// MaxPlanTombstones is the default of Limits.KernelPlanTombstones
// (--kernel-plan-tombstones): the tombstones of ended plans (applied,
// expired) the kernel keeps for all principals together, besides
// Limits.PlanTombstones per principal; past it the oldest is forgotten
// and its ref is plain UNKNOWN_PLAN (planstombs.go).
const MaxPlanTombstones = 16384

// MinGoneSpools is the fewest forgotten spools whose lengths the output
// store remembers (outspool_gone.go), so task.output on a task whose spool
// the count bound forgot reports its bytes as dropped.
const MinGoneSpools = 4096

// CheckpointPace is the least time between two writes of the session
// checkpoint writer (checkpointstore.go): a checkpoint lags its statement
// by at most this and one write.
const CheckpointPace = 20 * time.Millisecond
