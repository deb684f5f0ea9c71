package journal

import "fmt"

// Reads for the kernel's disk budget (internal/kernel/retention.go): how
// much of the database its rows use, and where a Prune of the oldest rows
// would free a given amount. Both only read.

// LiveBytes is the bytes of database pages in use: the file's pages less
// its free list. A Prune frees pages to the free list, which later writes
// reuse, so the file itself does not shrink; LiveBytes does.
func (d *DB) LiveBytes() (int64, error) {
	if err := d.sync(); err != nil {
		return 0, err
	}
	return d.AppliedBytes()
}

// AppliedBytes is LiveBytes without first applying the logged writes: the
// pages in use as of the applier's last batch. The writes not yet applied
// are in the intent log (LogBytes), so a budget that counts both counts
// them; and a check that runs every few dozen rows does not force a
// transaction of its own every few dozen rows onto the applier, whose
// batches then stay as large as ApplyDelay lets them grow.
func (d *DB) AppliedBytes() (int64, error) {
	var pages, free, size int64
	for _, q := range []struct {
		pragma string
		dst    *int64
	}{{"page_count", &pages}, {"freelist_count", &free}, {"page_size", &size}} {
		if err := d.db.QueryRow(`PRAGMA ` + q.pragma).Scan(q.dst); err != nil {
			return 0, fmt.Errorf("journal: live bytes: %w", err)
		}
	}
	return (pages - free) * size, nil
}

// PruneCutoff returns the id to Prune below so that about want bytes of
// the oldest finished exec rows go: the lengths of their outputs (the
// blobs they name, counted once per row, each at most outputCap: an
// output stored cut keeps its whole length in the row) plus their source,
// AST, effects and outputs columns. It looks at no more than maxRows rows (oldest
// first), and returns 0 when none of those is finished. Unfinished rows
// are passed over, as Prune keeps them.
func (d *DB) PruneCutoff(want int64, maxRows int, outputCap int64) (before int64, err error) {
	if err := d.sync(); err != nil {
		return 0, err
	}
	rows, err := d.db.Query(`SELECT e.id, (e.finished = 1 OR e.interrupted = 1),
			octet_length(e.packed) + octet_length(e.outputs_json)
			+ coalesce((SELECT sum(min(o.len, ?)) FROM outputs o WHERE o.entry_id = e.id), 0)
		FROM entries e WHERE e.kind = 'exec' ORDER BY e.id LIMIT ?`, outputCap, maxRows)
	if err != nil {
		return 0, fmt.Errorf("journal: prune cutoff: %w", err)
	}
	defer rows.Close()
	var sum int64
	for rows.Next() {
		var id, size int64
		var done bool
		if err := rows.Scan(&id, &done, &size); err != nil {
			return 0, fmt.Errorf("journal: prune cutoff: %w", err)
		}
		if !done {
			continue
		}
		sum += size
		before = id + 1
		if sum >= want {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("journal: prune cutoff: %w", err)
	}
	return before, nil
}

// TruncateWAL checkpoints the whole WAL into the database and truncates
// it to nothing (PRAGMA wal_checkpoint(TRUNCATE)). The journal's own
// checkpoints are passive and never shrink the WAL file, which therefore
// keeps the size of its longest run between checkpoints; the kernel's disk
// budget calls this when that file grows past its share. It changes no row.
// It waits (up to BusyTimeout) for readers of the WAL and holds writers
// off while it copies, so it is for a goroutine off the commit path.
func (d *DB) TruncateWAL() error {
	d.wal.ckmu.Lock() // taking turns with the journal's own (wal.go)
	defer d.wal.ckmu.Unlock()
	var busy, logFrames, done int
	if err := d.db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("journal: checkpoint: %w", err)
	}
	if busy != 0 {
		return fmt.Errorf("journal: checkpoint: the WAL is busy (%d of %d frames copied)", done, logFrames)
	}
	return nil
}

// HashesBefore lists the distinct output hashes of the rows a
// Prune(before) would consider (rows with id below before, and the
// statement rows of those), at most limit of them: the blobs that may have
// no row left once they are pruned.
func (d *DB) HashesBefore(before int64, limit int) ([]string, error) {
	if err := d.sync(); err != nil {
		return nil, err
	}
	// Two index ranges: the outputs' primary key by entry, and the
	// partial parent index for statement rows numbered above before.
	rows, err := d.db.Query(`SELECT hash FROM outputs WHERE entry_id < ?1
		UNION
		SELECT o.hash FROM entries e JOIN outputs o ON o.entry_id = e.id WHERE e.parent IS NOT NULL AND e.parent < ?1
		LIMIT ?2`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("journal: hashes before %d: %w", before, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, fmt.Errorf("journal: hashes before %d: %w", before, err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: hashes before %d: %w", before, err)
	}
	return out, nil
}
