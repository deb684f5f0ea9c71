package journal

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// The WAL's bound (issue 24, bounds round 10). The checkpointer's PASSIVE
// checkpoint copies the WAL into the database without waiting for anyone,
// but SQLite starts writing the WAL from its beginning again only when no
// reader still reads from it: under a steady write load beside a continual
// reader that moment never comes, and the WAL grew without end (115 MB was
// seen). So after each batch that leaves the WAL file past maxWALBytes,
// the applier truncates it (PRAGMA wal_checkpoint(TRUNCATE)) on its own
// connection, so no writer is in the way: SQLite copies what the passive
// checkpoints left and waits (up to walTruncateWait) for the readers still
// reading the WAL, while readers arriving meanwhile read the database
// itself, and readers that first apply the logged writes wait for the
// applier holding no snapshot; so the wait ends with the longest read
// under way. The logged writes gather meanwhile, bounded by
// MaxPendingBytes. The checkpointer's passes and this truncation take
// turns (ckmu): SQLite refuses a checkpoint at once, without waiting,
// while another runs. A truncation that fails (a reader past
// walTruncateWait) is tried again after the next batch. So the WAL passes its bound by at
// most one batch. The WAL file is counted in the kernel's disk budget
// (internal/kernel's dbBytes) as it was.

// maxWALBytes is MaxWALBytes; a test lowers it.
var maxWALBytes int64 = MaxWALBytes

// The bound under a disk budget (twenty-second round). MaxWALBytes alone
// let a kernel with a small budget (1 MiB) keep a WAL of several MiB:
// under a flood of small rows every budget check forces a small batch and
// a prune, each a transaction writing tens of pages, and the budget's own
// truncation (internal/kernel's dbBytes) came only between them. So the
// kernel sets a lower bound from its budget (SetWALBound), which the
// applier applies after every batch, and Prune after every PruneChunkRows
// rows (replay.go).

// walStats counts the applier's truncations of the WAL, for tests and
// the bench; ckmu makes checkpoints take turns.
type walStats struct {
	ckmu      sync.Mutex
	bound     atomic.Int64 // SetWALBound's bound; 0: MaxWALBytes alone
	peak      atomic.Int64 // the largest WAL file boundWAL has seen (for tests)
	truncated atomic.Int64 // truncations that emptied the WAL
	failed    atomic.Int64 // truncations a reader kept from it past walTruncateWait
}

// WALTruncations reports how many times the applier truncated the WAL
// past its bound, and how many attempts a reader kept from it.
func (d *DB) WALTruncations() (done, failed int64) {
	return d.wal.truncated.Load(), d.wal.failed.Load()
}

// SetWALBound lowers the WAL's bound to n bytes (n <= 0, or past
// MaxWALBytes: MaxWALBytes): the kernel's disk budget sets it to its
// share of the budget. With it the writes that make the WAL shrink too:
// a batch is cut at n/BoundBatchShare bytes of logged writes, the
// pending writes (the intent log not yet applied) are held to n, as is
// the intent log's segment. So one batch's WAL frames stay near a
// fraction of n, and writers wait for the applier, truncating the WAL as
// it goes, rather than pile up rows faster than the budget can drop
// them. Call it before the first write.
func (d *DB) SetWALBound(n int64) {
	n = max(n, 0)
	d.wal.bound.Store(n)
	a := d.ap
	a.mu.Lock()
	a.batchBytes, a.pendingCap = 0, MaxPendingBytes
	if n > 0 {
		a.batchBytes = max(n/BoundBatchShare, 1)
		a.pendingCap = min(n, MaxPendingBytes)
	}
	a.room.Broadcast()
	a.mu.Unlock()
	d.log.segBytes.Store(n)
}

// walBound is the WAL's bound: MaxWALBytes (maxWALBytes), or
// SetWALBound's when that is lower.
func (d *DB) walBound() int64 {
	if n := d.wal.bound.Load(); n > 0 && n < maxWALBytes {
		return n
	}
	return maxWALBytes
}

// WALBound is the WAL's bound in force (MaxWALBytes, or SetWALBound's).
func (d *DB) WALBound() int64 { return d.walBound() }

// walOver reports whether the WAL file is past its bound, and keeps the
// largest size it saw.
func (d *DB) walOver() bool {
	n := walBytes(d.path)
	if n > d.wal.peak.Load() {
		d.wal.peak.Store(n)
	}
	return n > d.walBound()
}

func walBytes(path string) int64 {
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// checkpoint is one pass of the checkpointer: a passive checkpoint.
func (d *DB) checkpoint() {
	d.wal.ckmu.Lock()
	defer d.wal.ckmu.Unlock()
	_, _ = d.db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
}

// boundWAL truncates the WAL when it is past its bound (see above). The
// applier calls it after each batch, and Prune after each chunk, with amu
// held.
func (d *DB) boundWAL() {
	if !d.walOver() {
		return
	}
	d.wal.ckmu.Lock()
	defer d.wal.ckmu.Unlock()
	// The applier waits for readers walTruncateWait at most, not
	// BusyTimeout: a truncation that cannot finish by then is tried
	// after the next batch rather than holding the writes back.
	ctx := context.Background()
	if _, err := d.w.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, walTruncateWait.Milliseconds())); err != nil {
		d.wal.failed.Add(1)
		return
	}
	var busy, logFrames, done int
	err := d.w.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done)
	if _, rerr := d.w.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, BusyTimeout.Milliseconds())); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil || busy != 0 {
		d.wal.failed.Add(1)
		return // tried again after the next batch
	}
	d.wal.truncated.Add(1)
}
