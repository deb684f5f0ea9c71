package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
)

// How a Query with a since/until window is planned (issue 24, bounds
// round 10). A window has no index that also yields rows newest first, so
// SQLite walked the id-ordered index and tested each row: a narrow window
// cost a walk of every row older than its answer (0.3-0.6 s over 100,000
// rows), which any principal could ask for again and again. Now:
//
//   - a window holding at most MaxWindowRows rows (of any kind or
//     principal, counted off entries_start alone) is read off entries_start
//     and its rows sorted newest first: the query costs what the window
//     holds, and its answer is exact;
//   - any other window, and an effects filter, walk newest first as before
//     until the page holds limit entries (or MaxPageBytes, or the end):
//     the kernel contract pins journal.query's limit exact, so a page does
//     not end early at a bound on the rows walked, and no index gives
//     those rows newest first (docs/performance.md, "The journal's windows
//     and its WAL").
//
// The start time is not used as a proxy for the id: start_ns is the
// kernel's wall clock when the row began, which a clock step moves
// backwards and a restart on another clock may put anywhere, so rows are
// not in start order by id.

// A deep window (issue 24, the twelfth round): a wide window with an
// until whose rows lie under many newer ones (more than MaxWindowRows rows
// start at or after until, counted off entries_start alone) cost a walk of
// every row above its answer. Its walk is now bounded by the ids of the
// window's own rows: the smallest and largest id of a row starting in the
// window, read off entries_start in one pass of the index alone (no row
// read; a few times cheaper a row than the walk), and the walk covers only
// those ids. The bounds are exact whatever the clock did: every row of the
// window has its id between them, so the page, newest first and limit
// exact, is the same; where start times follow the ids, as they do but
// for a clock step, the walk starts at the window's newest row and stops
// at its oldest. A window reaching the newest rows (no until, or few rows
// after it) walks as before: it starts in its answer.

// walkPlan is how buildQuery reads a Query's rows.
type walkPlan struct {
	// byStart reads the window off entries_start (it holds at most
	// MaxWindowRows rows).
	byStart bool
	// byIDs bounds the walk to the ids idLo..idHi, between which every
	// row of the window lies (a deep window).
	byIDs      bool
	idLo, idHi int64
}

// planWalk decides how q's rows are read (see above). It costs at most
// MaxWindowRows+1 entries of entries_start, touching no row.
func (d *DB) planWalk(q Query) (walkPlan, error) {
	if q.Since == 0 && q.Until == 0 {
		return walkPlan{}, nil
	}
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
	if q.Until == 0 {
		return walkPlan{}, nil
	}
	// A wide window: is it deep, under more than MaxWindowRows newer rows?
	var newer int
	if err := d.db.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM entries INDEXED BY entries_start WHERE start_ns >= ?1 LIMIT ?2)`,
		q.Until, MaxWindowRows+1).Scan(&newer); err != nil {
		return walkPlan{}, fmt.Errorf("journal: query: counting the rows after the window: %w", err)
	}
	if newer <= MaxWindowRows {
		return walkPlan{}, nil
	}
	var idLo, idHi sql.NullInt64
	if err := d.db.QueryRow(`SELECT min(id), max(id) FROM entries INDEXED BY entries_start WHERE start_ns >= ?1 AND start_ns < ?2`,
		lo, hi).Scan(&idLo, &idHi); err != nil {
		return walkPlan{}, fmt.Errorf("journal: query: the window's ids: %w", err)
	}
	if !idLo.Valid || !idHi.Valid {
		// Emptied since it was counted (retention): the walk finds
		// nothing either way; bound it to nothing.
		return walkPlan{byIDs: true, idLo: 1, idHi: 0}, nil
	}
	return walkPlan{byIDs: true, idLo: idLo.Int64, idHi: idHi.Int64}, nil
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
