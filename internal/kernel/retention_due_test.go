package kernel

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serveRetention starts an in-process kernel with a journal under budget
// (bytes) and returns it with a raw client attached to one session.
func serveRetention(t *testing.T, budget int64) (*Server, *rawLoadConn) {
	t.Helper()
	base := loadTempDir(t)
	dir := filepath.Join(base, "work")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lim := DefaultLimits()
	lim.JournalMaxBytes = budget
	cfg := Config{Version: "test", Dir: dir, Env: []string{"HOME=" + base, "PATH=/usr/bin:/bin"},
		StateDir: filepath.Join(base, "state"), Limits: &lim}
	srv, sock := serveTestKernel(t, base, cfg)
	c, err := dialRaw(sock, "retention")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.nc.Close() })
	return srv, c
}

// execAll runs each source as an exec, in turn. Each exec gets
// execAllWait to answer: the tests that use it run thousands, which under
// -race on a loaded machine can outlast dialRaw's one deadline for a whole
// run (a small budget's flood is throttled by its WAL bound, by design).
func execAll(t *testing.T, c *rawLoadConn, srcs []string) {
	t.Helper()
	for i, src := range srcs {
		if err := c.nc.SetDeadline(time.Now().Add(execAllWait)); err != nil {
			t.Fatal(err)
		}
		resp, err := c.call(100+i, "exec", []byte(`{"src":`+strconv.Quote(src)+`}`))
		if err != nil {
			t.Fatalf("exec %q: %v", src, err)
		}
		if resp.Error != nil {
			t.Fatalf("exec %q: error %d %s", src, resp.Error.Code, resp.Error.Message)
		}
	}
}

// execAllWait bounds one exec of execAll, so a wedged kernel fails the
// test instead of hanging it.
const execAllWait = 30 * time.Second

// retentionSources is rows of several shapes: pure expressions short and
// long, bindings, a spawn (a start row, effects and stdout) and a failing
// one.
func retentionSources(n int) []string {
	out := make([]string, 0, n)
	for i := range n {
		switch i % 6 {
		case 0:
			out = append(out, "1 + "+strconv.Itoa(i))
		case 1:
			out = append(out, "let x"+strconv.Itoa(i)+" = ["+strings.Repeat("1, ", 40)+"2].len()")
		case 2:
			out = append(out, `"row `+strconv.Itoa(i)+`".upper()`)
		case 3:
			out = append(out, "^true")
		case 4:
			out = append(out, "try { [1, 2].get(9) } catch e { e.code }")
		default:
			out = append(out, "{a: "+strconv.Itoa(i)+", b: [1, 2, 3]}.keys()")
		}
	}
	return out
}

// What a finished row counts towards the next budget check (rowBytes)
// is at least what it adds to the state the check measures: the
// database's live pages and the intent log's segments (its outputs are
// counted exactly, as they are stored). Were the estimate low, a kernel
// far under its budget could pass it between two checks.
func TestRetentionRowEstimate(t *testing.T) {
	srv, c := serveRetention(t, 1<<30)
	j := srv.journal
	// The first check (at start) measures and sets when the next is due;
	// with the state far under the budget, none falls in this test.
	deadline := time.Now().Add(10 * time.Second)
	for j.ret.due.Load() == RetentionMinCheckBytes {
		if time.Now().After(deadline) {
			t.Fatal("the first budget check never set the next one's due")
		}
		time.Sleep(5 * time.Millisecond)
	}
	state := func() int64 {
		live, err := j.db.LiveBytes() // applies what is logged first
		if err != nil {
			t.Fatal(err)
		}
		return live + j.db.LogBytes()
	}
	execAll(t, c, retentionSources(12)) // the session's first rows, the schema's first pages
	before, est0 := state(), j.ret.rows.Load()
	const n = 600
	execAll(t, c, retentionSources(n))
	grew, est := state()-before, j.ret.rows.Load()-est0
	t.Logf("%d rows: the state grew %d bytes (%d a row), estimated %d (%d a row)", n, grew, grew/n, est, est/n)
	if est < n*RetentionRowBytes {
		t.Fatalf("the rows were counted for %d bytes, less than %d each: not every row was counted", est, RetentionRowBytes)
	}
	if grew > est {
		t.Errorf("%d rows grew the state by %d bytes, more than the %d they were counted for", n, grew, est)
	}
}

// A budget check is due after a share of the headroom the last one left,
// and never later than RetentionMinCheckBytes near (or over) the budget.
func TestRetentionDue(t *testing.T) {
	r := &retention{max: 1 << 30}
	for _, tc := range []struct {
		state, want int64
	}{
		{0, (1 << 30) / RetentionHeadroomShare},
		{1 << 29, (1 << 29) / RetentionHeadroomShare},
		{1<<30 - RetentionMinCheckBytes, RetentionMinCheckBytes},
		{1 << 30, RetentionMinCheckBytes},
		{2 << 30, RetentionMinCheckBytes},
	} {
		r.setDue(tc.state)
		if got := r.due.Load(); got != tc.want {
			t.Errorf("state %d of %d: due after %d bytes, want %d", tc.state, r.max, got, tc.want)
		}
	}
}

// Ten times a small budget in small rows (no output over a few bytes):
// the checks the rows' estimate makes due prune the journal back under
// the budget and its documented slack while the rows come, not only at
// the next RetentionInterval.
func TestRetentionSmallRowsPrune(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of execs")
	}
	const budget = MinJournalBytes
	srv, c := serveRetention(t, budget)
	j := srv.journal
	srcs := retentionSources(6 * 1000)
	var peak int64
	for i := 0; i < len(srcs); i += 500 {
		execAll(t, c, srcs[i:min(i+500, len(srcs))])
		live, err := j.dbBytes()
		if err != nil {
			t.Fatal(err)
		}
		peak = max(peak, live)
	}
	// The rows written: about ten times the budget, each at least
	// RetentionRowBytes by the estimate the test above holds up.
	if written := int64(len(srcs)) * RetentionRowBytes; written < 10*budget {
		t.Fatalf("the test writes %d bytes of rows, less than ten budgets", written)
	}
	// Slack (docs/kernel.md, "Journal and blobs"): one due's worth of rows
	// past the line, a WAL and an intent log of up to an eighth of the
	// budget each, and the rows that come while a check runs (an eighth
	// here, for a slow -race run).
	const slack = RetentionMinCheckBytes + 3*budget/RetentionWALShare
	live, err := j.dbBytes()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows into a %d-byte budget: the database, WAL and log at %d bytes, %d at most between batches", len(srcs), budget, live, peak)
	if peak > budget+slack {
		t.Errorf("the journal reached %d bytes, over the %d budget plus %d", peak, budget, slack)
	}
	n, _, err := j.db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if n >= int64(len(srcs)) {
		t.Errorf("%d rows kept of %d: nothing was pruned", n, len(srcs))
	}
}
