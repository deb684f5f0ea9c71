package journal

import (
	"time"

	"github.com/shoalgo/shoal/proto"
)

// Fixed bounds of the journal store. Each has a row in the limits table of
// docs/kernel.md.
const (
	// DefaultQueryLimit is the page size of a Query that names no Limit.
	DefaultQueryLimit = 100
	// MaxQueryLimit is the largest page a Query returns; a larger Limit is
	// clamped to it.
	MaxQueryLimit = proto.JournalMaxLimit
	// MaxPageBytes ends a Query page early (with a cursor) once its entries'
	// source, AST, effects and outputs reach it, so a page of large entries
	// stays within a response frame's reach.
	MaxPageBytes = 8 << 20
	// MaxScopePrincipals is the most principals a Query's scope may list.
	MaxScopePrincipals = 256
	// MaxEffectFilter is the most effect kinds a Query's all-of filter may
	// name.
	MaxEffectFilter = 32
	// MaxWindowRows is the most rows a Query's since/until window may
	// hold (counted off the start-time index) to be read off that index
	// and sorted; a wider window walks newest first until its page is full
	// (window.go).
	MaxWindowRows = 4096
	// MaxRefScanRows bounds each side a References look-up for one
	// principal walks: the rows naming the hash, the principal's rows of
	// each kind (past both, ErrRefBudget).
	MaxRefScanRows = 4096
	// MaxCursorBytes is the longest cursor Query decodes.
	MaxCursorBytes = 64
	// MaxSrcBytes is the longest source an entry records.
	MaxSrcBytes = 1 << 20
	// MaxASTBytes is the largest AST (JSON) an entry records.
	MaxASTBytes = 4 << 20
	// MaxEffectsBytes is the largest effects list (JSON) an entry records.
	MaxEffectsBytes = 1 << 20
	// MaxEffectKinds is the most distinct effect kinds an entry records.
	MaxEffectKinds = 32
	// MaxEffectKindsEver is how many distinct effect kinds one journal can
	// ever record: each has a bit of the 63-bit effect_mask column (the
	// kernel's vocabulary has about ten).
	MaxEffectKindsEver = 63
	// MaxOutputs is the most outputs an entry records (Finish replaces
	// Begin's, it does not add to them).
	MaxOutputs = 16
	// MaxPlanBytes is the largest derived plan (JSON) a stored plan
	// keeps; a larger one is refused, not stored.
	MaxPlanBytes = 4 << 20
	// MaxPlanRows bounds the stored plans Plans reads at start (the
	// kernel's own plan bounds keep far fewer).
	MaxPlanRows = 1 << 17
	// MaxFieldBytes bounds every short text field (session, principal, cwd,
	// verdict, kinds, hashes).
	MaxFieldBytes = 4096
	// MaxHeadBytes is the longest head (first word of the source) stored.
	MaxHeadBytes = 256
	// CheckpointEvery is how many rows the applier writes between
	// checkpoints of the WAL into the database: applied in batches, rows
	// share their pages and a row adds about one WAL frame, so this is
	// SQLite's default of 1000 pages, moved off the commit path. (At 250 a
	// checkpoint, with its fsyncs, ran four times as often: 7% of a busy
	// kernel's CPU.)
	CheckpointEvery = 1000
	// MaxWALBytes bounds the WAL file: a batch that leaves it past this
	// has the applier truncate it (wal.go), where the checkpointer's
	// passive checkpoints, under a continual reader, never let SQLite reuse
	// it. The WAL passes it by at most that one batch (at most
	// MaxPendingBytes of logged writes and the index pages they touch).
	MaxWALBytes = 16 << 20
	// PruneChunkRows is how many rows (by id, statement rows counted)
	// one transaction of Prune deletes; the WAL's bound is applied
	// between two (wal.go). A prune of the thousands of small rows a
	// small disk budget holds wrote all their pages to the WAL in one
	// transaction, several times the budget; 256 small rows dirty some
	// 40 pages (docs/performance.md, "The WAL under small rows").
	PruneChunkRows = 256
	// BoundBatchShare: under a WAL bound set by SetWALBound (a disk
	// budget's share), a batch is cut once its logged writes reach this
	// share of the bound, and the pending writes are held to the bound
	// (wal.go). A batch of small rows writes about three times its logged
	// bytes to the WAL (each row's pages, the index leaves it touches), so
	// a batch stays within about the bound.
	BoundBatchShare = 4
	// walTruncateWait is how long the applier's truncation of the WAL
	// waits for the readers still reading it before giving up until the
	// next batch.
	walTruncateWait = 200 * time.Millisecond
	// ApplyDelay is how long the applier lets a batch of logged writes
	// gather before copying it into SQLite (reads apply at once). A
	// transaction's commit (its WAL frames) is a third of what applying
	// costs, shared by the batch's rows: the longer a batch gathers, the
	// less each row costs. Not the commit alone: with many sessions each
	// batch writes a leaf of each session-keyed index (entries_session,
	// entries_tseq, entries_ref) per session, so rows of one session
	// sharing a batch share those pages too (BenchmarkApplySessions, 32
	// sessions: ~68 µs of CPU a row in batches of 80, ~50 in batches of
	// 256, ~40 in batches of 1024). At 250 ms a kernel serving several
	// thousand execs a second fills batches of a couple of thousand rows
	// (at 100 ms, capped at 1,024, the leaves were written anew about
	// twice as often: BenchmarkApplyVariants/batch-x3 has 0.62 WAL frames
	// a row against 0.38, and BenchmarkThroughput32's kernel served a
	// quarter more requests a second: docs/performance.md, "Throughput:
	// the twelfth round"). Reads apply what is pending first (so a read
	// under such a load may wait for up to a batch's worth of applying),
	// and the rows are durable in the intent log before the applier sees
	// them.
	ApplyDelay = 250 * time.Millisecond
	// ApplyBatch is how many logged writes make a batch the applier
	// copies at once, without waiting out ApplyDelay: one transaction.
	// Four times the 1,024 of the eleventh round, so that ApplyDelay, not
	// the cap, ends a batch at 32 connections; a batch's dirty pages stay
	// below applySpillPages and its WAL frames below MaxWALBytes.
	ApplyBatch = 4096
	// MaxPendingBytes bounds the logged writes held in memory waiting for
	// the applier; past it writers wait for a batch to go through (and
	// fail while batches fail), so memory stays bounded however far
	// SQLite falls behind.
	MaxPendingBytes = 8 << 20
	// logSegmentBytes is the size past which the intent log moves to its
	// other segment (once everything in that one is applied).
	logSegmentBytes = 4 << 20
	// BusyTimeout is how long a statement waits for SQLite's lock.
	BusyTimeout = 5 * time.Second
	// applySpillPages is the write connection's cache_spill: how many
	// pages (4 KiB each) a batch's transaction may hold dirty in memory
	// before SQLite writes some of them to the WAL ahead of the commit.
	// Under SQLite's default (its 2 MiB cache) a batch of many sessions'
	// rows spilled, and every page the batch then touched again was
	// rewritten in the WAL and all frames after it checksummed anew at the
	// commit (a tenth of applying a row). A batch is bounded by ApplyBatch
	// and MaxPendingBytes, so its dirty pages stay well under this; past
	// it, SQLite spills as before.
	applySpillPages = 4096
	// maxOpenConns bounds the connection pool (WAL: one writer, the rest
	// readers).
	maxOpenConns = 4
	// maxCachedQueries bounds the prepared Query statements kept (one per
	// combination of filters in use); beyond it a query runs unprepared.
	maxCachedQueries = 128
)
