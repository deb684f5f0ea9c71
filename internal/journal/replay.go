package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
)

// SeqQuery selects finished exec rows by their event-channel numbers, for
// rebuilding the journal and session.transcript channels from the
// database once their in-memory rings have moved on (or the kernel
// restarted).
type SeqQuery struct {
	// Transcript selects by TSeq on the stream of Principal and Session;
	// otherwise by Seq, the journal channel, over Principals.
	Transcript         bool
	Principal, Session string
	// Principals is the journal channel reader's scope: nil means every
	// principal, a non-nil empty slice none. Unused with Transcript.
	Principals []string
	After      uint64 // seq > After
	Before     uint64 // seq < Before; 0: no bound
	Limit      int    // 0: DefaultQueryLimit; clamped to MaxQueryLimit
	// Tail selects the newest Limit rows of the range instead of the
	// oldest. Rows come oldest first either way.
	Tail bool
}

// BySeq returns the rows q selects, oldest (lowest seq) first.
func (d *DB) BySeq(q SeqQuery) ([]Entry, error) {
	if err := d.sync(); err != nil {
		return nil, err
	}
	if q.Limit < 0 {
		return nil, fmt.Errorf("%w: negative limit %d", ErrBadQuery, q.Limit)
	}
	text, args, err := bySeqQuery(q)
	if err != nil {
		return nil, err
	}
	if text == "" {
		return []Entry{}, nil
	}
	rows, err := d.db.Query(text, args...)
	if err != nil {
		return nil, fmt.Errorf("journal: by seq: %w", err)
	}
	es, err := d.scan(rows)
	if err != nil {
		return nil, fmt.Errorf("journal: by seq: %w", err)
	}
	if q.Tail {
		for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
			es[i], es[j] = es[j], es[i]
		}
	}
	return es, nil
}

// bySeqQuery is BySeq's SQL text and arguments ("" when q selects
// nothing, without asking the database).
func bySeqQuery(q SeqQuery) (string, []any, error) {
	limit := q.Limit
	if limit == 0 {
		limit = DefaultQueryLimit
	}
	limit = min(limit, MaxQueryLimit)
	col := "seq"
	var where []string
	var args []any
	if q.Transcript {
		col = "tseq"
		where = append(where, "principal = ?", "session = ?", "tseq IS NOT NULL")
		args = append(args, q.Principal, q.Session)
	} else {
		if q.Principals != nil && len(q.Principals) == 0 {
			return "", nil, nil
		}
		if len(q.Principals) > MaxScopePrincipals {
			return "", nil, fmt.Errorf("%w: %d principals in scope (max %d)", ErrBadQuery, len(q.Principals), MaxScopePrincipals)
		}
		where = append(where, "seq IS NOT NULL")
		if len(q.Principals) > 0 {
			where = append(where, "principal IN (?"+strings.Repeat(", ?", len(q.Principals)-1)+")")
			for _, p := range q.Principals {
				args = append(args, p)
			}
		}
	}
	where, args = append(where, col+" > ?"), append(args, int64(q.After))
	if q.Before != 0 {
		where, args = append(where, col+" < ?"), append(args, int64(q.Before))
	}
	order := "ASC"
	if q.Tail {
		order = "DESC"
	}
	text := `SELECT ` + entryCols + ` FROM entries WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY ` + col + ` ` + order + ` LIMIT ?`
	args = append(args, limit)
	return text, args, nil
}

// LastSeq is the journal channel's last number (0: no finished row).
func (d *DB) LastSeq() uint64 {
	d.fmu.Lock()
	defer d.fmu.Unlock()
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if !d.closed && d.batch != nil {
		// Rows numbered and not yet written are not yet told: write them
		// first, so the answer is no seq that has not gone out.
		_ = d.flushLocked()
	}
	return d.seqs.last
}

// LastPSeq is principal's last number on the journal channel in its own
// numbering (Entry.PSeq; 0: none).
func (d *DB) LastPSeq(principal string) (uint64, error) {
	d.fmu.Lock()
	defer d.fmu.Unlock()
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if d.closed {
		return 0, ErrClosed
	}
	if err := d.flushLocked(); err != nil {
		return 0, err
	}
	if p, ok := d.seqs.plast[principal]; ok {
		return p, nil
	}
	return d.lastPSeqLocked(principal)
}

// SeqOfPSeq maps principal's own number pseq to the journal channel's:
// the seq of its newest row numbered pseq or below (0: none, or pseq 0).
func (d *DB) SeqOfPSeq(principal string, pseq uint64) (uint64, error) {
	if pseq == 0 {
		return 0, nil
	}
	if err := d.sync(); err != nil {
		return 0, err
	}
	var seq sql.NullInt64
	if err := d.db.QueryRow(sqlSeqOfPSeq,
		principal, int64(min(pseq, 1<<62))).Scan(&seq); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("journal: seq of principal seq: %w", err)
	}
	return uint64(seq.Int64), nil
}

// LastTSeq is the last number of the session.transcript channel of
// principal and session (0: none).
func (d *DB) LastTSeq(principal, session string) (uint64, error) {
	d.fmu.Lock()
	defer d.fmu.Unlock()
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if d.closed {
		return 0, ErrClosed
	}
	if err := d.flushLocked(); err != nil {
		return 0, err
	}
	if t, ok := d.seqs.tlast[streamKey{principal, session}]; ok {
		return t, nil
	}
	if err := d.sync(); err != nil {
		return 0, err
	}
	var last sql.NullInt64
	if err := d.db.QueryRow(sqlLastTSeq,
		principal, session).Scan(&last); err != nil {
		return 0, fmt.Errorf("journal: last transcript seq: %w", err)
	}
	return uint64(last.Int64), nil
}

// ByRef returns the newest row of principal and session whose value or
// error was stored as out:n, or ErrNotFound.
func (d *DB) ByRef(principal, session string, n int64) (Entry, error) {
	if err := d.sync(); err != nil {
		return Entry{}, err
	}
	rows, err := d.db.Query(sqlByRef, principal, session, n)
	if err != nil {
		return Entry{}, fmt.Errorf("journal: by ref: %w", err)
	}
	es, err := d.scan(rows)
	if err != nil {
		return Entry{}, fmt.Errorf("journal: by ref: %w", err)
	}
	if len(es) == 0 {
		return Entry{}, fmt.Errorf("%w: out:%d of %s/%s", ErrNotFound, n, principal, session)
	}
	return es[0], nil
}

// MaxRef is the largest N of the out:N refs principal and session's rows
// recorded (0: none): a session that outlives a restart numbers its
// values above it, so a ref names one value across restarts.
func (d *DB) MaxRef(principal, session string) (int64, error) {
	if err := d.sync(); err != nil {
		return 0, err
	}
	var n sql.NullInt64
	err := d.db.QueryRow(sqlMaxRef,
		principal, session).Scan(&n)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("journal: max ref: %w", err)
	}
	return n.Int64, nil
}

// Stats reports the number of rows and the journal's size on disk in
// bytes: the database file, its WAL and the intent log's segments.
func (d *DB) Stats() (rows int64, bytes int64, err error) {
	if err := d.sync(); err != nil {
		return 0, 0, err
	}
	if err := d.db.QueryRow(`SELECT count(*) FROM entries`).Scan(&rows); err != nil {
		return 0, 0, fmt.Errorf("journal: stats: %w", err)
	}
	for _, p := range []string{d.path, d.path + "-wal", d.path + "-log.0", d.path + "-log.1"} {
		if fi, err := os.Stat(p); err == nil {
			bytes += fi.Size()
		}
	}
	return rows, bytes, nil
}

// Prune deletes the rows with id below before (statement rows with their
// exec) and returns how many went. Blobs only they referenced become
// unreferenced, for the next cas.Store.Sweep. Finished rows only: a row
// still running is kept.
func (d *DB) Prune(before int64) (int64, error) {
	if err := d.sync(); err != nil {
		return 0, fmt.Errorf("journal: prune: %w", err)
	}
	// Never wait for wmu while holding the applier's lock: Close takes
	// wmu, then the applier's lock. A Close that comes between the check
	// and the lock leaves the connection closed, and the prune fails
	// rather than waits.
	d.wmu.Lock()
	closed := d.closed
	d.wmu.Unlock()
	if closed {
		return 0, ErrClosed
	}
	d.ap.amu.Lock()
	defer d.ap.amu.Unlock()
	if d.w == nil {
		return 0, fmt.Errorf("journal: prune: no write connection")
	}
	w := writer{d.w}
	// A transaction per PruneChunkRows rows, the WAL bounded after each
	// (wal.go): one transaction deleting thousands of rows wrote every
	// page they held to the WAL at once. Each chunk deletes whole rows
	// (an exec row with its statement rows), oldest first, so a reader
	// between two chunks sees a smaller prune, never a torn row.
	var total int64
	for lo := int64(0); ; {
		cut, err := d.pruneChunkEnd(w, lo, before)
		if err != nil {
			return total, fmt.Errorf("journal: prune: %w", err)
		}
		n, err := d.pruneTx(w, cut)
		if err != nil {
			return total, err
		}
		total += n
		d.wrote(int(n))
		d.boundWAL()
		if cut >= before {
			return total, nil
		}
		lo = cut
	}
}

// pruneChunkEnd is where the prune chunk starting at row lo ends: the id
// PruneChunkRows rows above lo, or before when fewer are left.
func (d *DB) pruneChunkEnd(w writer, lo, before int64) (int64, error) {
	var cut int64
	err := w.QueryRow(`SELECT id FROM entries WHERE id >= ? AND id < ? ORDER BY id LIMIT 1 OFFSET ?`, lo, before, PruneChunkRows).Scan(&cut)
	if errors.Is(err, sql.ErrNoRows) {
		return before, nil
	}
	if err != nil {
		return 0, err
	}
	return cut, nil
}

// pruneTx is one transaction of Prune: the rows below before.
func (d *DB) pruneTx(w writer, before int64) (int64, error) {
	if _, err := w.Exec(`BEGIN IMMEDIATE`); err != nil {
		return 0, fmt.Errorf("journal: prune: %w", err)
	}
	n, err := d.pruneLocked(w, before)
	if err != nil {
		_, _ = w.Exec(`ROLLBACK`)
		return 0, fmt.Errorf("journal: prune: %w", err)
	}
	if _, err := w.Exec(`COMMIT`); err != nil {
		_, _ = w.Exec(`ROLLBACK`)
		return 0, fmt.Errorf("journal: prune: %w", err)
	}
	return n, nil
}

func (d *DB) pruneLocked(w writer, before int64) (int64, error) {
	doomed := `SELECT id FROM entries WHERE id < ? AND (finished = 1 OR interrupted = 1)`
	if _, err := w.Exec(`DELETE FROM outputs WHERE entry_id IN (SELECT id FROM entries WHERE parent IN (`+doomed+`))`, before); err != nil {
		return 0, err
	}
	if _, err := w.Exec(`DELETE FROM entries WHERE parent IN (`+doomed+`)`, before); err != nil {
		return 0, err
	}
	if _, err := w.Exec(`DELETE FROM outputs WHERE entry_id IN (`+doomed+`)`, before); err != nil {
		return 0, err
	}
	res, err := w.Exec(`DELETE FROM entries WHERE id IN (`+doomed+`) AND id NOT IN (SELECT parent FROM entries WHERE parent IS NOT NULL)`, before)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
