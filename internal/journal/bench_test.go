package journal

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// benchEntry is a realistic exec row: a short source, an AST, two effects,
// and value, stdout and stderr outputs.
func benchEntry() *Entry {
	return &Entry{Session: "sess-0001", Principal: "alice", Cwd: "/home/alice/src", Src: "ls -la | where size > 1000",
		AST:     json.RawMessage(`{"stmts":[{"k":"pipe","parts":[{"k":"cmd","name":"ls","args":["-la"]},{"k":"where"}]}]}`),
		Effects: json.RawMessage(`[{"kind":"fs_read","path":"/home/alice/src"},{"kind":"proc_spawn","program":"ls"}]`)}
}

var benchOutputs = []Output{
	{Kind: OutValue, Hash: "blake3:0c5f2e9f3b1c4d6a8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7", Len: 812},
	{Kind: OutStdout, Hash: "blake3:1d6f3a0f4c2d5e7b9f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708", Len: 4096},
	{Kind: OutStderr, Hash: "blake3:2e7a4b1a5d3e6f8cafa1b2c3d4e5f608192a3b4c5d6e7f8091a2b3c4d5e6f7081", Len: 0},
}

// openFloor opens a bare modernc database with the journal's pragmas and
// one plain table: the floor a journal commit is measured against.
func openFloor(b *testing.B) *sql.DB {
	b.Helper()
	path := filepath.Join(b.TempDir(), "floor.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, session TEXT, principal TEXT, start_ns INTEGER, src TEXT)`); err != nil {
		b.Fatal(err)
	}
	return db
}

func bareInsert(b *testing.B, db *sql.DB, i int) {
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO t(session, principal, start_ns, src) VALUES (?, ?, ?, ?)`, "sess-0001", "alice", i, "ls -la"); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

func quantileUS(lat []time.Duration, p float64) float64 {
	slices.Sort(lat)
	return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Nanoseconds()) / 1e3
}

// BenchmarkBeginFinish alternates one journal row (Begin, then Finish with
// three outputs: two committed transactions, as the kernel does per exec)
// with one bare modernc INSERT transaction, and reports the medians and
// 99th percentiles of both.
func BenchmarkBeginFinish(b *testing.B) {
	d, err := Open(filepath.Join(b.TempDir(), "journal.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	floor := openFloor(b)
	fin := &Entry{OK: true, Verdict: "allowed", Outputs: benchOutputs}
	jLat := make([]time.Duration, 0, b.N)
	fLat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		id, err := d.Begin(benchEntry())
		if err != nil {
			b.Fatal(err)
		}
		if err := d.Finish(id, fin); err != nil {
			b.Fatal(err)
		}
		jLat = append(jLat, time.Since(t0))
		t0 = time.Now()
		bareInsert(b, floor, i)
		fLat = append(fLat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(quantileUS(jLat, 0.5), "journal-p50-us")
	b.ReportMetric(quantileUS(jLat, 0.99), "journal-p99-us")
	b.ReportMetric(quantileUS(fLat, 0.5), "floor-p50-us")
	b.ReportMetric(quantileUS(fLat, 0.99), "floor-p99-us")
}

// BenchmarkRecord alternates Record (a whole finished row, outputs and
// all, in one statement: the path for runs that need no unfinished row)
// with the bare INSERT floor.
func BenchmarkRecord(b *testing.B) {
	d, err := Open(filepath.Join(b.TempDir(), "journal.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	floor := openFloor(b)
	jLat := make([]time.Duration, 0, b.N)
	fLat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		e := benchEntry()
		e.OK, e.Verdict, e.Outputs = true, "allowed", benchOutputs
		t0 := time.Now()
		if _, err := d.Record(e); err != nil {
			b.Fatal(err)
		}
		jLat = append(jLat, time.Since(t0))
		t0 = time.Now()
		bareInsert(b, floor, i)
		fLat = append(fLat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(quantileUS(jLat, 0.5), "journal-p50-us")
	b.ReportMetric(quantileUS(jLat, 0.99), "journal-p99-us")
	b.ReportMetric(quantileUS(fLat, 0.5), "floor-p50-us")
	b.ReportMetric(quantileUS(fLat, 0.99), "floor-p99-us")
}

// BenchmarkBareInsert is the floor alone: one modernc INSERT per
// transaction with the journal's pragmas.
func BenchmarkBareInsert(b *testing.B) {
	floor := openFloor(b)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		bareInsert(b, floor, i)
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(quantileUS(lat, 0.5), "p50-us")
	b.ReportMetric(quantileUS(lat, 0.99), "p99-us")
}

const benchRows = 100_000

var bigJournal struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// bigJournalPath builds, once per test binary, a journal of benchRows
// finished exec rows spread over five principals, each with effect kinds
// and three outputs, written in bulk through the journal's own schema.
func bigJournalPath(b *testing.B) string {
	bigJournal.once.Do(func() {
		bigJournal.dir, bigJournal.err = os.MkdirTemp("", "journal-bench-")
		if bigJournal.err != nil {
			return
		}
		bigJournal.path = filepath.Join(bigJournal.dir, "journal.db")
		d, err := Open(bigJournal.path)
		if err != nil {
			bigJournal.err = err
			return
		}
		defer d.Close()
		mask, err := d.maskFor([]string{"fs_read", "proc_spawn"})
		if err != nil {
			bigJournal.err = err
			return
		}
		outs, _ := outputsJSON(benchOutputs)
		tx, err := d.db.Begin()
		if err != nil {
			bigJournal.err = err
			return
		}
		defer tx.Rollback()
		e := benchEntry()
		for i := range benchRows {
			p := fmt.Sprint("principal-", i%5)
			row := Entry{Kind: KindExec, Session: fmt.Sprint("sess-", i%50), Principal: p, StartNS: int64(i) * 1000,
				FinishNS: int64(i)*1000 + 500, Finished: true, Cwd: e.Cwd, Src: e.Src, Head: Head(e.Src), AST: e.AST,
				Effects: e.Effects, Verdict: "allowed", OK: true}
			if _, err := tx.Exec(`INSERT INTO entries(kind, session, principal, start_ns, finish_ns, finished, cwd, head, effect_mask, verdict, ok, opaque, outputs_json, packed)
				VALUES ('exec', ?, ?, ?, ?, 1, ?, ?, ?, 'allowed', 1, 0, ?, ?)`,
				row.Session, p, row.StartNS, row.FinishNS, e.Cwd, row.Head, mask, string(outs), packEntry(&row, mask, string(outs))); err != nil {
				bigJournal.err = err
				return
			}
		}
		bigJournal.err = tx.Commit()
	})
	if bigJournal.err != nil {
		b.Fatal(bigJournal.err)
	}
	return bigJournal.path
}

// BenchmarkQueryNewest100 asks a 100,000-row journal of five principals for
// the newest 100 rows of one principal, scoped to that principal (as a
// caller without journal_read_all is), alternating with the floor: the
// same indexed SELECT of the entry rows alone, without building entries or
// reading their outputs and effect kinds.
func BenchmarkQueryNewest100(b *testing.B) {
	d, err := Open(bigJournalPath(b))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	q := Query{Principal: "principal-3", Principals: []string{"principal-3"}, Limit: 100}
	es, next, err := d.Query(q)
	if err != nil || len(es) != 100 || next == "" || es[0].Principal != "principal-3" || len(es[0].Outputs) != 3 {
		b.Fatalf("warm-up query: %d entries, next %q, %v", len(es), next, err)
	}
	qLat := make([]time.Duration, 0, b.N)
	fLat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		es, _, err := d.Query(q)
		if err != nil || len(es) != 100 {
			b.Fatalf("%d entries, %v", len(es), err)
		}
		qLat = append(qLat, time.Since(t0))
		t0 = time.Now()
		rows, err := d.db.Query(`SELECT `+entryCols+` FROM entries WHERE kind = 'exec' AND principal = ? ORDER BY id DESC LIMIT 100`, "principal-3")
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		if n != 100 {
			b.Fatalf("floor read %d rows", n)
		}
		fLat = append(fLat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(quantileUS(qLat, 0.5), "query-p50-us")
	b.ReportMetric(quantileUS(qLat, 0.99), "query-p99-us")
	b.ReportMetric(quantileUS(fLat, 0.5), "floor-p50-us")
	b.ReportMetric(quantileUS(fLat, 0.99), "floor-p99-us")
}

// BenchmarkApply measures what the applier spends per logged write: Record
// rows into the log with the background applier stopped, then apply them
// all in batches of ApplyBatch, timing only the applying (ns/op is per
// row).
func BenchmarkApply(b *testing.B) {
	d, err := Open(filepath.Join(b.TempDir(), "journal.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.StopTimer()
	close(d.ap.stop)
	<-d.ap.done
	var ops []*logOp
	for len(ops) < b.N {
		for range min(b.N-len(ops), ApplyBatch*8) {
			e := benchEntry()
			e.OK, e.Verdict, e.Outputs = true, "allowed", benchOutputs
			if _, err := d.Record(e); err != nil {
				b.Fatal(err)
			}
		}
		batch := takePending(d)
		ops = append(ops, batch...)
		b.StartTimer()
		applyInBatches(b, d, batch)
		b.StopTimer()
	}
	d.ap.stop, d.ap.done = make(chan struct{}), make(chan struct{})
	go d.runApplier()
}

// BenchmarkApplyBeginFinish is BenchmarkApply for a command with effects:
// each row is begun and then finished (two logged writes, as an owner's
// spawn makes), both in the same batch, as they mostly are when the
// command takes less than ApplyDelay; ns/op is per row.
func BenchmarkApplyBeginFinish(b *testing.B) {
	d, err := Open(filepath.Join(b.TempDir(), "journal.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Record(benchEntry()); err != nil { // the principal's seqs, read once
		b.Fatal(err)
	}
	if err := d.sync(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	close(d.ap.stop)
	<-d.ap.done
	done := 0
	for done < b.N {
		var batch []*logOp
		for range min(b.N-done, ApplyBatch/2) {
			id, err := d.Begin(benchEntry())
			if err != nil {
				b.Fatal(err)
			}
			if err := d.Finish(id, &Entry{OK: true, Verdict: "allowed", Outputs: benchOutputs[:1]}); err != nil {
				b.Fatal(err)
			}
			done++
		}
		batch = append(batch, takePending(d)...)
		b.StartTimer()
		d.ap.amu.Lock()
		if err := d.applyOps(batch); err != nil {
			b.Fatal(err)
		}
		d.ap.amu.Unlock()
		b.StopTimer()
	}
	d.ap.stop, d.ap.done = make(chan struct{}), make(chan struct{})
	go d.runApplier()
}

// takePending takes every op the intent log holds for the (stopped)
// applier.
func takePending(d *DB) []*logOp {
	var batch []*logOp
	for more := d.ap.take(); len(more) > 0; more = d.ap.take() {
		batch = append(batch, more...)
	}
	return batch
}

// applyInBatches applies batch in runs of ApplyBatch, as the applier
// does, holding its lock.
func applyInBatches(b *testing.B, d *DB, batch []*logOp) {
	d.ap.amu.Lock()
	defer d.ap.amu.Unlock()
	for len(batch) > 0 {
		n := min(len(batch), ApplyBatch)
		if err := d.applyOps(batch[:n]); err != nil {
			b.Fatal(err)
		}
		batch = batch[n:]
	}
}
