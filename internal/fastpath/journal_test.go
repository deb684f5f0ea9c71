package fastpath

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/shoalgo/shoal/internal/journal"
)

const (
	journalRows       = 100_000
	journalPrincipals = 10
)

// fillJournal writes journalRows finished exec entries of journalPrincipals
// principals (agent:p0 …) into a new journal in state, through the
// journal's own Record, each with two effects and three outputs, and
// closes it (every row applied to SQLite).
//
// With SHOAL_FASTPATH_JOURNAL_TEMPLATE set to a directory, the journal's
// files are copied from it when it holds them (written by an earlier run
// of the same kind) and into it after a fill, so that alternated runs of
// two trees measure on one and the same journal and skip the minutes of
// filling it.
func fillJournal(b *testing.B, state string) string {
	b.Helper()
	path := filepath.Join(state, "journal.db")
	tmpl := os.Getenv("SHOAL_FASTPATH_JOURNAL_TEMPLATE")
	if tmpl != "" && copyJournal(b, tmpl, state) {
		return path
	}
	db, err := journal.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	outs := []journal.Output{
		{Kind: journal.OutValue, Hash: "blake3:0c5f2e9f3b1c4d6a8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7", Len: 812},
		{Kind: journal.OutStdout, Hash: "blake3:1d6f3a0f4c2d5e7b9f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708", Len: 4096},
		{Kind: journal.OutStderr, Hash: "blake3:2e7a4b1a5d3e6f8cafa1b2c3d4e5f608192a3b4c5d6e7f8091a2b3c4d5e6f7081", Len: 3},
	}
	for i := range journalRows {
		e := journal.Entry{Session: "sess-" + strconv.Itoa(i%50), Principal: "agent:p" + strconv.Itoa(i%journalPrincipals),
			Cwd: "/home/alice/src", Src: "ls -la | where size > 1000", OK: true, Verdict: "allow",
			AST:     json.RawMessage(`{"stmts":[{"k":"pipe","parts":[{"k":"cmd","name":"ls","args":["-la"]},{"k":"where"}]}]}`),
			Effects: json.RawMessage(`[{"kind":"fs_read","path":"/home/alice/src"},{"kind":"proc_spawn","program":"ls"}]`),
			Outputs: outs}
		if _, err := db.Record(&e); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	if tmpl != "" {
		if err := os.MkdirAll(tmpl, 0o700); err != nil {
			b.Fatal(err)
		}
		copyJournal(b, state, tmpl)
	}
	return path
}

// copyJournal copies the files named journal.db* from one directory to
// another and reports whether there was a journal.db to copy.
func copyJournal(b *testing.B, from, to string) bool {
	b.Helper()
	names, err := filepath.Glob(filepath.Join(from, "journal.db*"))
	if err != nil {
		b.Fatal(err)
	}
	found := false
	for _, name := range names {
		// Streamed (io.Copy's small buffer), not read whole into this
		// process's heap: 150 MB there would change the floor's
		// collections, which run in this process.
		if err := copyFile(name, filepath.Join(to, filepath.Base(name))); err != nil {
			b.Fatal(err)
		}
		found = found || filepath.Base(name) == "journal.db"
	}
	return found
}

// copyFile copies the file from to the path to, streaming.
func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return fmt.Errorf("copy %s: %w", from, err)
	}
	return dst.Close()
}

// BenchmarkJournalQuery100k is the table's journal row: `journal.query`
// for the newest 100 entries of one principal out of a 100,000-entry
// journal, as the kernel owner with a principal filter, timed from the
// request written to the whole answer read off the socket; beside it the
// floor, the indexed SQL the answer rests on, run in this process on the
// same database while the kernel has it open: the same rows' columns the
// journal reads, selected by the (kind, principal, id) index through
// database/sql and modernc.org/sqlite, fetched and not decoded.
func BenchmarkJournalQuery100k(b *testing.B) {
	slow(b)
	state := filepath.Join(shortDir(b), "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		b.Fatal(err)
	}
	path := fillJournal(b, state)
	k := startKernel(b, state)
	c := dial(b, k.sock, "query")
	params := []byte(`{"principal":"agent:p3","limit":100}`)
	line, err := c.call("journal.query", params)
	if err != nil {
		b.Fatal(err)
	}
	var first struct {
		Result []struct {
			Principal string `json:"principal"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &first); err != nil || len(first.Result) != 100 || first.Result[0].Principal != "agent:p3" {
		b.Fatalf("journal.query: %d entries, %v: %.300s", len(first.Result), err, line)
	}

	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	stmt, err := db.Prepare(`SELECT id, interrupted, packed, coalesce(pseq, 0), coalesce(pid, 0) FROM entries
		WHERE kind = 'exec' AND principal = ? ORDER BY id DESC LIMIT 100`)
	if err != nil {
		b.Fatal(err)
	}
	defer stmt.Close()
	floor := func() error {
		rows, err := stmt.Query("agent:p3")
		if err != nil {
			return err
		}
		defer rows.Close()
		n := 0
		var id, interrupted, pseq, pid int64
		var packed sql.RawBytes
		for rows.Next() {
			if err := rows.Scan(&id, &interrupted, &packed, &pseq, &pid); err != nil {
				return err
			}
			n++
		}
		if n != 100 {
			b.Fatalf("floor read %d rows", n)
		}
		return rows.Err()
	}
	query := func() error {
		_, err := c.call("journal.query", params)
		return err
	}
	warm(b, 20, query, floor)
	var p Pair
	cpu0 := k.cpu(b)
	for b.Loop() {
		if err := p.Run(query, floor); err != nil {
			b.Fatal(err)
		}
	}
	// The kernel's CPU per query (ticks of 10 ms: meaningful over a run
	// of thousands), steadier on a shared machine than its latency.
	b.ReportMetric(Micros(k.cpu(b)-cpu0)/float64(b.N), "kernel-cpu-us/query")
	p.Report(b, true)
}
