package journal

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// windowRow is what windowJournal wrote of a row.
type windowRow struct {
	id, pid, start int64
	principal      string
	net            bool // has the rare effect kind
	old            bool // has the effect kind only the oldest rows have
}

// windowJournal writes n finished exec rows over three principals, in bulk
// through the journal's schema, whose start times are NOT in id order (a
// clock stepped back and forth: a random permutation), every 97th with
// the effect kind "net_connect", rows 2-11 alone with "fs_write", and
// every row with output hash hot (and the last row of principal-2 alone
// with hash cold).
func windowJournal(t *testing.T, n int) (*DB, []windowRow) {
	t.Helper()
	d, err := Open(filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	plain, err := d.maskFor([]string{"fs_read"})
	if err != nil {
		t.Fatal(err)
	}
	rare, err := d.maskFor([]string{"fs_read", "net_connect"})
	if err != nil {
		t.Fatal(err)
	}
	oldest, err := d.maskFor([]string{"fs_read", "fs_write"})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := d.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ins, err := tx.Prepare(`INSERT INTO entries(id, kind, session, principal, start_ns, finished, head, effect_mask, ok, packed, pid)
		VALUES (?, 'exec', 's', ?, ?, 1, 'ls', ?, 1, ?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tx.Prepare(`INSERT INTO outputs(entry_id, seq, kind, hash, len) VALUES (?, 0, 'value', ?, 1)`)
	if err != nil {
		t.Fatal(err)
	}
	starts := rand.New(rand.NewPCG(1, 2)).Perm(n)
	pids := map[string]int64{}
	rows := make([]windowRow, 0, n)
	for i := range n {
		p := fmt.Sprint("principal-", i%3)
		pids[p]++
		r := windowRow{id: int64(i + 1), pid: pids[p], start: int64(starts[i]+1) * 1000, principal: p, net: i%97 == 0, old: i >= 1 && i <= 10}
		mask := plain
		switch {
		case r.net:
			mask = rare
		case r.old:
			mask = oldest
		}
		e := Entry{Kind: KindExec, Session: "s", Principal: p, StartNS: r.start, Finished: true, Src: "ls", Head: "ls", OK: true, PID: r.pid}
		if _, err := ins.Exec(r.id, p, r.start, mask, packEntry(&e, mask, "[]"), r.pid); err != nil {
			t.Fatal(err)
		}
		h := "hot"
		if i%3 == 2 && i+3 >= n { // principal-2's newest row
			h = "cold"
		}
		if _, err := out.Exec(r.id, h); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := d.loadState(); err != nil {
		t.Fatal(err)
	}
	return d, rows
}

// pageAll pages q to its end, following next cursors, and returns the ids
// answered (own ids with OwnIDs). Every page but the last holds exactly
// q.Limit entries (the kernel contract: limit is honoured exactly; the
// rows are far below MaxPageBytes), and the last is not empty unless it is
// the only one.
func pageAll(t *testing.T, d *DB, q Query) (ids []int64) {
	t.Helper()
	for calls := 1; ; calls++ {
		if calls > 10_000 {
			t.Fatalf("%+v: no end after %d calls", q, calls)
		}
		es, next, err := d.Query(q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		switch {
		case next != "" && len(es) != q.Limit:
			t.Fatalf("%+v: page %d holds %d entries, not the limit, and a next cursor", q, calls, len(es))
		case len(es) > q.Limit:
			t.Fatalf("%+v: page %d holds %d entries", q, calls, len(es))
		case next == "" && len(es) == 0 && calls > 1:
			t.Fatalf("%+v: an empty last page after a next cursor", q)
		}
		for _, e := range es {
			if q.OwnIDs {
				ids = append(ids, e.PID)
			} else {
				ids = append(ids, e.ID)
			}
		}
		ReleasePage(es)
		if next == "" {
			return ids
		}
		q.Cursor = next
	}
}

// A since/until window or an effects filter answers exactly the rows a
// walk of every row would, newest first, however the start times lie
// against the ids, in pages of exactly limit entries until the last (the
// kernel contract): a window of at most MaxWindowRows rows is read off
// entries_start, a wider one, and an effects filter, walk the id order
// until the page is full, however many older rows that takes (the
// "fs_write" rows are the oldest ten, under 12,000 newer ones).
//
// References for one principal answers exactly when either side (the
// rows naming the hash, the principal's rows) is within MaxRefScanRows,
// and fails closed with ErrRefBudget when both are longer and the walks
// find nothing. (One journal for both: writing it is most of the time.)
func TestQueryWindowAndReferencesBounded(t *testing.T) {
	n := 3*max(MaxWindowRows, MaxRefScanRows) + 30
	d, rows := windowJournal(t, n)
	t.Run("query", func(t *testing.T) { testQueryWindow(t, d, rows) })
	t.Run("references", func(t *testing.T) { testReferences(t, d) })
}

func testQueryWindow(t *testing.T, d *DB, rows []windowRow) {
	n := len(rows)
	us := int64(1000)
	cases := []struct {
		name    string
		q       Query
		want    func(r windowRow) bool
		byStart bool // the window is read off entries_start
		byIDs   bool // a deep window: the walk is bounded by its ids
	}{
		{"narrow", Query{Since: 500 * us, Until: 520 * us}, nil, true, false},
		{"narrow since", Query{Since: int64(n-30) * us}, nil, true, false},
		{"window of MaxWindowRows", Query{Since: 1 * us, Until: int64(MaxWindowRows+1) * us}, nil, true, false},
		{"window of MaxWindowRows+1", Query{Since: 1 * us, Until: int64(MaxWindowRows+2) * us}, nil, false, true},
		{"wide until", Query{Until: int64(n/2) * us}, nil, false, true},
		{"wide, one principal", Query{Until: int64(n/2) * us, Principal: "principal-1"}, func(r windowRow) bool { return r.principal == "principal-1" }, false, true},
		{"deep, own ids", Query{Since: 100 * us, Until: int64(n/2) * us, Principals: []string{"principal-2"}, OwnIDs: true}, func(r windowRow) bool { return r.principal == "principal-2" }, false, true},
		{"deep, rare effect", Query{Until: int64(n/2) * us, Effects: []string{"net_connect"}}, func(r windowRow) bool { return r.net }, false, true},
		{"wide, few rows after it", Query{Since: 1 * us, Until: int64(n-100) * us}, nil, false, false},
		{"own ids", Query{Since: 2000 * us, Principals: []string{"principal-2"}, OwnIDs: true}, func(r windowRow) bool { return r.principal == "principal-2" }, false, false},
		{"rare effect", Query{Effects: []string{"net_connect"}}, func(r windowRow) bool { return r.net }, false, false},
		{"rare effect, own ids", Query{Effects: []string{"net_connect"}, Principals: []string{"principal-0"}, OwnIDs: true},
			func(r windowRow) bool { return r.net && r.principal == "principal-0" }, false, false},
		{"oldest effect", Query{Effects: []string{"fs_write"}}, func(r windowRow) bool { return r.old }, false, false},
		{"oldest effect, wide window", Query{Effects: []string{"fs_write"}, Until: int64(n) * us}, func(r windowRow) bool { return r.old }, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if wp, err := d.planWalk(c.q); err != nil || wp.byStart != c.byStart || wp.byIDs != c.byIDs {
				t.Fatalf("planWalk: %+v, %v; want byStart %v, byIDs %v", wp, err, c.byStart, c.byIDs)
			}
			var want []int64
			for _, r := range slices.Backward(rows) {
				in := (c.q.Since == 0 || r.start >= c.q.Since) && (c.q.Until == 0 || r.start < c.q.Until)
				if in && (c.want == nil || c.want(r)) {
					if c.q.OwnIDs {
						want = append(want, r.pid)
					} else {
						want = append(want, r.id)
					}
				}
			}
			if len(want) == 0 {
				t.Fatal("the case matches no row")
			}
			// (Small pages of the wide windows would take minutes
			// under the race detector: each page walks or sorts
			// thousands of rows.)
			limits := []int{MaxQueryLimit}
			if len(want) < 200 {
				limits = append(limits, 7)
			}
			for _, limit := range limits {
				q := c.q
				q.Limit = limit
				if got := pageAll(t, d, q); !slices.Equal(got, want) {
					t.Fatalf("limit %d: %d ids %v..., want %d %v...", limit, len(got), got[:min(len(got), 5)], len(want), want[:min(len(want), 5)])
				}
			}
		})
	}
}

func testReferences(t *testing.T, d *DB) {
	for _, c := range []struct {
		hash, principal string
		want            bool
		err             error
	}{
		{"hot", "principal-1", true, nil},
		{"hot", "nobody", false, nil},         // the principal side is empty
		{"cold", "principal-2", true, nil},    // the hash side is short
		{"cold", "principal-0", false, nil},   // the hash side is short
		{"absent", "principal-0", false, nil}, // no row names it
		{"hot", "", true, nil},                // any principal
		{"cold", "", true, nil},               //
	} {
		ok, err := d.References(c.hash, c.principal)
		if ok != c.want || !errors.Is(err, c.err) {
			t.Errorf("References(%q, %q) = %v, %v; want %v, %v", c.hash, c.principal, ok, err, c.want, c.err)
		}
	}
	// principal-0 has more than MaxRefScanRows rows, and so has "hot";
	// make the one row of principal-0 naming "hot" the oldest and give
	// every other row of principal-0 hash "other": neither walk reaches it.
	if _, err := d.db.Exec(`UPDATE outputs SET hash = 'other' WHERE entry_id IN (SELECT id FROM entries WHERE principal = 'principal-0') AND entry_id > 1`); err != nil {
		t.Fatal(err)
	}
	if ok, err := d.References("hot", "principal-0"); ok || !errors.Is(err, ErrRefBudget) {
		t.Errorf("References past both bounds = %v, %v; want ErrRefBudget", ok, err)
	}
	if ok, err := d.References("hot", ""); !ok || err != nil {
		t.Errorf("References(hot, any) = %v, %v", ok, err)
	}
}

// Pages of own ids sort nothing: a first page walks its filter's index
// by id, a page after a cursor walks entries_pid (by id, a page after a
// cursor sorted every older row of the principal's), a wide window's too.
func TestOwnIDPlansSortNothing(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	no := false
	own := []string{"a"}
	for _, q := range []Query{
		{Principals: own, OwnIDs: true},
		{Principals: own, OwnIDs: true, Head: "ls"},
		{Principals: own, OwnIDs: true, Session: "s"},
		{Principals: own, OwnIDs: true, OK: &no},
		{Principals: own, OwnIDs: true, Cursor: encodeCursor(5)},
		{Principals: own, OwnIDs: true, Head: "ls", Cursor: encodeCursor(5)},
	} {
		if plan := explain(t, d, q); strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%+v: plan %q sorts", q, plan)
		}
	}
	text, args, _, err := buildQuery(Query{Principals: own, OwnIDs: true, Since: 5, Cursor: encodeCursor(9)}, d.bits, walkPlan{})
	if err != nil {
		t.Fatal(err)
	}
	if plan := planOf(t, d.db, text, args); strings.Contains(plan, "TEMP B-TREE") || !strings.Contains(plan, "entries_pid") {
		t.Errorf("own ids of a wide window after a cursor: plan %q", plan)
	}
}

// A deep window (window.go: a wide window under more than MaxWindowRows
// newer rows) walks only its rows' ids: planWalk bounds it by the
// smallest and largest id starting in the window, and the walk's index
// range holds both bounds (SQLite stops at the window's oldest row
// rather than walking to the journal's first), on whichever index the
// filters choose. A window reaching the newest rows walks unbounded, as
// it starts in its answer.
func TestDeepWindowWalksItsIDs(t *testing.T) {
	d := openTemp(t)
	const n = 3 * MaxWindowRows
	tx, err := d.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO entries(id, kind, session, principal, start_ns, finished, head, effect_mask, ok, packed)
		VALUES (?, 'exec', 's', 'p', ?, 1, 'ls', 0, 1, '')`)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= n; i++ { // start times in id order, 1 µs apart
		if _, err := ins.Exec(i, i*1000); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	deep := Query{Since: 1000 * 1000, Until: (1000 + MaxWindowRows + 10) * 1000}
	wp, err := d.planWalk(deep)
	if err != nil || !wp.byIDs || wp.idLo != 1000 || wp.idHi != 1000+MaxWindowRows+9 {
		t.Fatalf("deep window: plan %+v, %v; want its ids 1000..%d", wp, err, 1000+MaxWindowRows+9)
	}
	for _, q := range []Query{deep, {Since: deep.Since, Until: deep.Until, Principal: "p"}, {Until: deep.Until, Head: "ls"}, {Until: deep.Until, Session: "s"}} {
		if plan := explain(t, d, q); !strings.Contains(plan, "id>? AND id<?") {
			t.Errorf("%+v: plan %q does not bound the walk by the window's ids", q, plan)
		}
	}
	for _, q := range []Query{{Since: 1000 * 1000}, {Since: 1000, Until: (n - 10) * 1000}} {
		if wp, err := d.planWalk(q); err != nil || wp.byIDs || wp.byStart {
			t.Errorf("%+v: plan %+v, %v; want the walk from the newest row", q, wp, err)
		}
	}
}
