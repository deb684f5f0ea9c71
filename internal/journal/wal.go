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

// walStats counts the applier's truncations of the WAL, for tests and
// the bench; ckmu makes checkpoints take turns.
type walStats struct {
	ckmu      sync.Mutex
	truncated atomic.Int64 // truncations that emptied the WAL
	failed    atomic.Int64 // truncations a reader kept from it past walTruncateWait
}

// WALTruncations reports how many times the applier truncated the WAL
// past its bound, and how many attempts a reader kept from it.
func (d *DB) WALTruncations() (done, failed int64) {
	return d.wal.truncated.Load(), d.wal.failed.Load()
}

// walOver reports whether the WAL file is past its bound.
func (d *DB) walOver() bool { return walBytes(d.path) > maxWALBytes }

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
// applier calls it after each batch, with amu held.
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
