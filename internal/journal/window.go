package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
)

// How a Query with a since/until window or an effects filter is planned
// (issue 24, bounds round 10). Those filters have no index that also
// yields rows newest first, so SQLite walked the id-ordered index and
// tested each row: a narrow window, or a rare effect kind, cost a walk of
// every older row (0.3-0.6 s over 100,000 rows), which any principal could
// ask for again and again. Now:
//
//   - a window holding at most MaxWindowRows rows (of any kind or
//     principal, counted off entries_start alone) is read off entries_start
//     and its rows sorted newest first: the query costs what the window
//     holds, and its answer is exact;
//   - any other window, and an effects filter, walk newest first as before
//     but through at most MaxQueryScanRows rows of the walk's index (ids of
//     the row kind, or the caller's own ids): a page that the budget ends
//     holds what the walk found (its cursor continues below the rows
//     walked), and one that found nothing is a ScanBudgetError naming where
//     to continue, not an empty page (an empty page is the end).
//
// The start time is not used as a proxy for the id: start_ns is the
// kernel's wall clock when the row began, which a clock step moves
// backwards and a restart on another clock may put anywhere, so rows are
// not in start order by id.

// ScanBudgetError is Query's answer when a page's walk went through
// MaxQueryScanRows rows without finding one that matches: the rows older
// than Before (an id, or an own id for a Query with OwnIDs) are unwalked.
// Cursor is the Query cursor that continues there (CursorAfter(Before)).
type ScanBudgetError struct {
	Before int64
	Cursor string
}

func (e *ScanBudgetError) Error() string {
	return fmt.Sprintf("journal: query: no matching entry in the %d rows one page may walk; rows older than %d are not yet walked",
		MaxQueryScanRows, e.Before)
}

// ErrScanBudget matches a *ScanBudgetError with errors.Is.
var ErrScanBudget = errors.New("journal: query scan budget spent")

// Is makes errors.Is(err, ErrScanBudget) true of a *ScanBudgetError.
func (e *ScanBudgetError) Is(target error) bool { return target == ErrScanBudget }

// walkPlan is how buildQuery reads a Query's rows.
type walkPlan struct {
	// byStart reads the window off entries_start (it holds at most
	// MaxWindowRows rows).
	byStart bool
	// stop, when not 0, is the id (own id with OwnIDs) at which the walk
	// ends: only rows above it are read.
	stop int64
}

// planWalk decides how q's rows are read (see above). It costs at most
// MaxWindowRows entries of entries_start and one look-up of the walk's
// index, neither touching a row.
func (d *DB) planWalk(q Query) (walkPlan, error) {
	if q.Since == 0 && q.Until == 0 && len(q.Effects) == 0 {
		return walkPlan{}, nil
	}
	if q.Since != 0 || q.Until != 0 {
		lo, hi := q.Since, q.Until
		if q.Since == 0 {
			lo = math.MinInt64
		}
		text := `SELECT count(*) FROM (SELECT 1 FROM entries INDEXED BY entries_start WHERE start_ns >= ?1 AND start_ns < ?2 LIMIT ?3)`
		if q.Until == 0 {
			text = `SELECT count(*) FROM (SELECT 1 FROM entries INDEXED BY entries_start WHERE start_ns >= ?1 LIMIT ?3)`
			hi = 0
		}
		var n int
		if err := d.db.QueryRow(text, lo, hi, MaxWindowRows+1).Scan(&n); err != nil {
			return walkPlan{}, fmt.Errorf("journal: query: counting the window: %w", err)
		}
		if n <= MaxWindowRows {
			return walkPlan{byStart: true}, nil
		}
	}
	// The walk reads rows whose id (own id) lies below the cursor and above
	// stop, MaxQueryScanRows below the cursor's (or, on the first page,
	// above the newest row's): ids being distinct integers, the walk meets
	// at most that many rows whatever else the query asks, and finding
	// stop costs one index look-up, not a walk of its own.
	_, top := walkTop(q)
	if top == "" {
		return walkPlan{}, nil // buildQuery refuses it
	}
	var before int64
	if q.Cursor != "" {
		var err error
		if before, err = decodeCursor(q.Cursor); err != nil {
			return walkPlan{}, err
		}
	} else {
		var newest sql.NullInt64
		if err := d.db.QueryRow(top, walkArgs(q, math.MaxInt64)...).Scan(&newest); err != nil {
			return walkPlan{}, fmt.Errorf("journal: query: bounding the walk: %w", err)
		}
		before = newest.Int64 + 1
	}
	stop := before - 1 - MaxQueryScanRows
	if stop < 1 {
		return walkPlan{}, nil // the whole walk is within the budget
	}
	return walkPlan{stop: stop}, nil
}

// walkTop is the column a Query's walk runs down and the statement that
// finds its newest row below an id: the row kind's ids, or the one
// principal's own ids with OwnIDs.
func walkTop(q Query) (col, text string) {
	switch {
	case q.OwnIDs:
		if len(q.Principals) != 1 {
			return "", ""
		}
		return "pid", `SELECT max(pid) FROM entries WHERE principal = ? AND pid < ?`
	case q.Kind == "*":
		return "id", `SELECT max(id) FROM entries WHERE id < ?`
	default:
		return "id", `SELECT max(id) FROM entries WHERE kind = ? AND id < ?`
	}
}

// walkArgs are walkTop's statement's arguments for rows below before.
func walkArgs(q Query, before int64) []any {
	switch {
	case q.OwnIDs:
		return []any{q.Principals[0], before}
	case q.Kind == "*":
		return []any{before}
	case q.Kind == KindStmt:
		return []any{KindStmt, before}
	default:
		return []any{KindExec, before}
	}
}

// resumeAfter is where a page that found nothing above stop continues:
// below the newest row of the walk at or under stop, so that a stretch of
// ids with no row of the walk (pruned, or another kind's) costs one page,
// not one per MaxQueryScanRows ids. 0: no row is left.
func (d *DB) resumeAfter(q Query, stop int64) (int64, error) {
	_, top := walkTop(q)
	var next sql.NullInt64
	if err := d.db.QueryRow(top, walkArgs(q, stop+1)...).Scan(&next); err != nil {
		return 0, fmt.Errorf("journal: query: bounding the walk: %w", err)
	}
	if !next.Valid {
		return 0, nil
	}
	return next.Int64 + 1, nil
}

// referencesBy answers References(h, principal) for a non-empty principal
// walking at most MaxRefScanRows rows of each side: the rows naming h
// (is one of them the principal's?) and the principal's rows of each kind
// (does one of them name h?). The sides are first counted, up to the
// bound, off their indexes alone, and the shorter walked first: a side
// walked to its end answers exactly. When both are longer, each is walked
// newest first to the bound, and finding nothing is ErrRefBudget (fail
// closed: the caller is not served the blob, and is told why).
func (d *DB) referencesBy(h, principal string) (bool, error) {
	byHash := func(n int) (bool, error) {
		return exists(d.db.QueryRow(`SELECT 1 FROM (SELECT entry_id FROM outputs WHERE hash = ?1 ORDER BY entry_id DESC LIMIT ?3) o
			JOIN entries e ON e.id = o.entry_id WHERE e.principal = ?2 LIMIT 1`, h, principal, n))
	}
	// Mostly the blob is the caller's own recent output: a few of the
	// newest rows naming it say so without counting either side.
	if ok, err := byHash(refQuickRows); ok || err != nil {
		return ok, err
	}
	var nHash, nExec, nStmt int
	for _, c := range []struct {
		dst  *int
		text string
		args []any
	}{
		{&nHash, `SELECT count(*) FROM (SELECT 1 FROM outputs WHERE hash = ? LIMIT ?)`, []any{h, MaxRefScanRows + 1}},
		{&nExec, `SELECT count(*) FROM (SELECT 1 FROM entries WHERE kind = ? AND principal = ? LIMIT ?)`, []any{KindExec, principal, MaxRefScanRows + 1}},
		{&nStmt, `SELECT count(*) FROM (SELECT 1 FROM entries WHERE kind = ? AND principal = ? LIMIT ?)`, []any{KindStmt, principal, MaxRefScanRows + 1}},
	} {
		if err := d.db.QueryRow(c.text, c.args...).Scan(c.dst); err != nil {
			return false, err
		}
	}
	byPrincipal := func() (bool, error) {
		for _, kind := range []string{KindExec, KindStmt} {
			ok, err := exists(d.db.QueryRow(`SELECT 1 FROM (SELECT id FROM entries WHERE kind = ?1 AND principal = ?2 ORDER BY id DESC LIMIT ?4) e
				CROSS JOIN outputs o ON o.entry_id = e.id WHERE o.hash = ?3 LIMIT 1`, kind, principal, h, MaxRefScanRows))
			if ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	}
	hashWhole, principalWhole := nHash <= MaxRefScanRows, nExec <= MaxRefScanRows && nStmt <= MaxRefScanRows
	hashSide := func() (bool, error) { return byHash(MaxRefScanRows) }
	first, second := hashSide, byPrincipal
	if principalWhole && (!hashWhole || nExec+nStmt < nHash) {
		first, second = byPrincipal, hashSide
	}
	if ok, err := first(); ok || err != nil {
		return ok, err
	}
	if hashWhole || principalWhole {
		return false, nil // the side walked first was walked whole
	}
	if ok, err := second(); ok || err != nil {
		return ok, err
	}
	return false, ErrRefBudget
}

// refQuickRows is how many of the newest rows naming a hash References
// looks at before counting either side.
const refQuickRows = 32

// exists is whether a SELECT 1 found a row.
func exists(r *sql.Row) (bool, error) {
	var one int
	switch err := r.Scan(&one); {
	case err == nil:
		return true, nil
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	default:
		return false, err
	}
}

// ErrRefBudget is References' answer when neither the rows naming a hash
// nor the principal's rows could be looked at whole within
// MaxRefScanRows rows each.
var ErrRefBudget = errors.New("journal: references: the hash and the principal each have more rows than one look-up may walk")
