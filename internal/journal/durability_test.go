package journal

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const crashChildEnv = "SHOAL_JOURNAL_CRASH_CHILD"

// TestMain lets the test binary act as the crash child: with crashChildEnv
// set it journals in a loop until it is killed.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	code := m.Run()
	if bigJournal.dir != "" {
		os.RemoveAll(bigJournal.dir)
	}
	os.Exit(code)
}

// crashWritersEnv, when set with crashChildEnv, is how many goroutines
// of the crash child write at once (one when unset).
const crashWritersEnv = "SHOAL_JOURNAL_CRASH_WRITERS"

// crashChild Begins rows in a loop, Finishing two of every three, and
// reports each commit on stdout after it returned: "b <id>" for a Begin,
// "f <id>" for a Finish. With crashWritersEnv it runs that many such
// loops at once, each of which also Records a whole row (a pure exec's)
// every third turn, reported as "r <id>": the kernel's concurrent
// requests, each writing its own rows.
func crashChild(path string) {
	d, err := Open(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	writers, _ := strconv.Atoi(os.Getenv(crashWritersEnv))
	var mu sync.Mutex
	w := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		mu.Lock()
		fmt.Fprintf(w, format+"\n", args...)
		w.Flush()
		mu.Unlock()
	}
	fail := func(err error) {
		say("error %v", err)
		os.Exit(2)
	}
	loop := func(g int) {
		for i := 0; ; i++ {
			id, err := d.Begin(&Entry{Session: "crash" + strconv.Itoa(g), Principal: "p", Src: "loop " + strconv.Itoa(i),
				Effects: json.RawMessage(`[{"kind":"fs_write"}]`)})
			if err != nil {
				fail(err)
			}
			say("b %d", id)
			if i%3 != 2 {
				if err := d.Finish(id, &Entry{OK: true, Outputs: []Output{{Kind: OutValue, Hash: "blake3:" + strconv.Itoa(i), Len: 1}}}); err != nil {
					fail(err)
				}
				say("f %d", id)
			} else if writers > 1 {
				id, err := d.Record(&Entry{Session: "crash" + strconv.Itoa(g), Principal: "p", Src: "1 + " + strconv.Itoa(i), OK: true,
					Outputs: []Output{{Kind: OutValue, Hash: "blake3:r" + strconv.Itoa(i), Len: 1}}})
				if err != nil {
					fail(err)
				}
				say("r %d", id)
			}
		}
	}
	for g := 1; g < writers; g++ {
		go loop(g)
	}
	loop(0)
}

func TestCrashMidLoop(t *testing.T) { crashMidLoop(t, 1) }

// TestCrashConcurrentWriters is TestCrashMidLoop with eight writers at
// once, as the kernel's concurrent requests write: every row any of them
// was told was committed (Begin, Finish, Record) is there after a kill -9,
// whatever batch of the applier it was in, or none.
func TestCrashConcurrentWriters(t *testing.T) { crashMidLoop(t, 8) }

func crashMidLoop(t *testing.T, writers int) {
	path := filepath.Join(t.TempDir(), "journal.db")
	recovered := 0
	for round := range 2 { // the second round crashes a database that already survived one
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path, crashWritersEnv+"="+strconv.Itoa(writers))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		begun, finished, recorded := map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
		sc := bufio.NewScanner(out)
		deadline := time.Now().Add(60 * time.Second)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 2 || f[0] == "error" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child: %s", sc.Text())
			}
			id, _ := strconv.ParseInt(f[1], 10, 64)
			switch f[0] {
			case "b":
				begun[id] = true
			case "r":
				recorded[id] = true
			default:
				finished[id] = true
			}
			if len(begun) >= 300 || time.Now().After(deadline) {
				break
			}
		}
		// Kill mid-loop: the child is still writing.
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		go func() {
			for sc.Scan() {
			}
		}() // drain whatever it printed before dying
		cmd.Wait()
		if len(begun) < 10 {
			t.Fatalf("round %d: child committed only %d rows", round, len(begun))
		}

		d, err := Open(path)
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		recovered += d.recovered
		var check string
		if err := d.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
			t.Fatalf("integrity_check = %q, %v", check, err)
		}
		for id := range begun {
			e, err := d.Get(id)
			if err != nil {
				t.Fatalf("round %d: committed row %d lost: %v", round, id, err)
			}
			if finished[id] {
				if !e.Finished || e.Interrupted || !e.OK || len(e.Outputs) != 1 {
					t.Fatalf("finished row %d came back as %+v", id, e)
				}
			} else if writers > 1 && e.Finished {
				// Its Finish may have returned with no time left to say
				// so before the kill: then it is whole.
				if e.Interrupted || !e.OK || len(e.Outputs) != 1 {
					t.Fatalf("row %d finished unannounced came back as %+v", id, e)
				}
			} else if e.Finished || !e.Interrupted {
				t.Fatalf("unfinished row %d came back as finished=%v interrupted=%v", id, e.Finished, e.Interrupted)
			}
		}
		for id := range recorded {
			e, err := d.Get(id)
			if err != nil {
				t.Fatalf("round %d: recorded row %d lost: %v", round, id, err)
			}
			if !e.Finished || e.Interrupted || !e.OK || len(e.Outputs) != 1 {
				t.Fatalf("recorded row %d came back as %+v", id, e)
			}
		}
		// No row anywhere is unfinished and unmarked.
		var open int
		d.db.QueryRow(`SELECT count(*) FROM entries WHERE finished = 0 AND interrupted = 0`).Scan(&open)
		if open != 0 {
			t.Fatalf("%d unfinished rows left unmarked", open)
		}
		// An interrupted row cannot be finished later.
		for id := range begun {
			if !finished[id] {
				if err := d.Finish(id, &Entry{OK: true}); !errors.Is(err, ErrFinished) {
					t.Fatalf("Finish of interrupted row: %v", err)
				}
				break
			}
		}
		d.Close()
	}
	// The kills landed while writes were logged and not yet applied: what
	// came back came (in part) from the intent log.
	if recovered == 0 {
		t.Fatal("no round left writes in the intent log to recover; the test did not exercise replay")
	}
	t.Logf("writes recovered from the intent log: %d", recovered)
}

func TestConcurrentWritersAndReaders(t *testing.T) {
	d := openTemp(t)
	const writers, each = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, writers*each+100)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id, err := d.Begin(&Entry{Session: fmt.Sprint("s", w), Principal: fmt.Sprint("p", w), Src: fmt.Sprint("echo ", i),
					Effects: json.RawMessage(`[{"kind":"proc_spawn"}]`)})
				if err != nil {
					errs <- err
					return
				}
				if err := d.Finish(id, &Entry{OK: true}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	stop := make(chan struct{})
	var rg sync.WaitGroup
	for r := range 2 {
		rg.Add(1)
		go func() {
			defer rg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				es, _, err := d.Query(Query{Principal: fmt.Sprint("p", r), Effects: []string{"proc_spawn"}, Limit: 20})
				if err != nil {
					errs <- err
					return
				}
				for i := 1; i < len(es); i++ {
					if es[i].ID >= es[i-1].ID {
						errs <- fmt.Errorf("not newest first: %d after %d", es[i].ID, es[i-1].ID)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for w := range writers {
		es, next, err := d.Query(Query{Session: fmt.Sprint("s", w), Limit: each})
		if err != nil || len(es) != each || next != "" {
			t.Fatalf("writer %d: %d rows, next %q, %v", w, len(es), next, err)
		}
		for _, e := range es {
			if !e.Finished {
				t.Fatalf("row %d not finished", e.ID)
			}
		}
	}
}

func TestMigrateFromV1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	old, err := openAt(path, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	// A v1 row, written as v1 wrote them: no head, no effect kinds table.
	if _, err := old.db.Exec(`INSERT INTO entries(kind, session, principal, start_ns, finish_ns, finished, src, effects, ok)
		VALUES ('exec', 's', 'alice', 5, 9, 1, 'rm -r old', '[{"kind":"fs_delete"},{"kind":"fs_read"}]', 1),
		       ('exec', 's', 'alice', 6, 0, 0, 'sleep 100', NULL, 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := old.db.Exec(`INSERT INTO outputs(entry_id, seq, kind, hash, len) VALUES (1, 0, 'value', 'blake3:v1', 4), (1, 1, 'stdout', 'blake3:v1out', 9)`); err != nil {
		t.Fatal(err)
	}
	if _, err := old.db.Exec(`SELECT head FROM entries`); err == nil {
		t.Fatal("v1 schema already has head")
	}
	old.Close()

	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var versions []int
	rows, _ := d.db.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	for rows.Next() {
		var v int
		rows.Scan(&v)
		versions = append(versions, v)
	}
	rows.Close()
	if len(versions) != SchemaVersion || versions[0] != 1 || versions[len(versions)-1] != SchemaVersion {
		t.Fatalf("migrations recorded %v, want 1..%d", versions, SchemaVersion)
	}
	es, _, err := d.Query(Query{Head: "rm", Effects: []string{"fs_delete", "fs_read"}})
	if err != nil || len(es) != 1 || es[0].Src != "rm -r old" {
		t.Fatalf("migrated row not found by head and effects: %v %v", es, err)
	}
	if len(es[0].Outputs) != 2 || es[0].Outputs[1] != (Output{Kind: OutStdout, Hash: "blake3:v1out", Len: 9}) {
		t.Fatalf("v1 outputs not carried over: %+v", es[0].Outputs)
	}
	if ok, err := d.References("blake3:v1", "alice"); !ok || err != nil {
		t.Fatalf("v1 output not referenced after migration: %v %v", ok, err)
	}
	if err := d.Finish(es[0].ID, &Entry{}); !errors.Is(err, ErrFinished) {
		t.Fatalf("finishing a finished v1 row: %v", err)
	}
	sl, _, _ := d.Query(Query{Head: "sleep"})
	if len(sl) != 1 || !sl[0].Interrupted {
		t.Fatalf("v1 unfinished row not marked: %+v", sl)
	}
	// Reopening at the current version changes nothing.
	d.Close()
	d2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	d2.Close()

	// A database from a newer build is refused, not clobbered.
	raw, _ := sql.Open("sqlite", path)
	raw.Exec(`INSERT INTO schema_migrations(version, applied_ns) VALUES (?, 0)`, SchemaVersion+1)
	raw.Close()
	if _, err := Open(path); !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("newer schema: %v", err)
	}
}

func TestWALMode(t *testing.T) {
	d := openTemp(t)
	var mode string
	var timeout int
	d.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	d.db.QueryRow(`PRAGMA busy_timeout`).Scan(&timeout)
	if mode != "wal" || timeout != int(BusyTimeout.Milliseconds()) {
		t.Fatalf("journal_mode %q busy_timeout %d", mode, timeout)
	}
}

func TestQueryUsesIndexes(t *testing.T) {
	d := openTemp(t)
	fixture(t, d, 20)
	for _, c := range []struct {
		q   Query
		idx string
	}{
		{Query{Principals: []string{"alice"}}, "entries_principal"},
		{Query{Principal: "alice"}, "entries_principal"},
		{Query{Session: "s1"}, "entries_session"},
		{Query{Head: "ls"}, "entries_head"},
		{Query{OK: new(true)}, "entries_kind"}, // most rows: a walk of the kind index finds them
		{Query{OK: new(false)}, "entries_failed"},
		{Query{Kind: KindStmt, Parent: 1}, "entries_parent"},
		{Query{}, "entries_kind"},
	} {
		plan := explain(t, d, c.q)
		if !strings.Contains(plan, c.idx) || strings.Contains(plan, "USE TEMP B-TREE") {
			t.Errorf("%+v: plan %q does not use %s without a sort", c.q, plan, c.idx)
		}
	}
	if plan := explain(t, d, Query{Principal: "alice", Effects: []string{"fs_read"}}); !strings.Contains(plan, "entries_principal") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("effects plan %q", plan)
	}
}

func explain(t *testing.T, d *DB, q Query) string {
	t.Helper()
	wp, err := d.planWalk(q)
	if err != nil {
		t.Fatal(err)
	}
	text, args, _, err := buildQuery(q, d.bits, wp)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := d.db.Query(`EXPLAIN QUERY PLAN `+text, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, parent, notused int
		var detail string
		rows.Scan(&id, &parent, &notused, &detail)
		b.WriteString(detail + "; ")
	}
	return b.String()
}
