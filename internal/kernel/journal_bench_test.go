package kernel

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/journal"
)

// BenchmarkExecJournal measures what the journal adds to an exec round
// trip of the kernel owner over a Unix socket: the same exec on a kernel
// without a state directory (off, the floor) and on one journalling to a
// temp state directory (on), in the same run; beside them, in process, the
// journal row alone (Begin and Finish, row: a run with effects; Record,
// record: a pure run's, what "1 + 1" and "pwd" write) and a bare
// modernc.org/sqlite insert per transaction in WAL mode (insert, the
// floor of one commit):
//
//	go test -run '^$' -bench ExecJournal -count 5 ./internal/kernel/
func BenchmarkExecJournal(b *testing.B) {
	off := benchJournalKernel(b, false)
	on := benchJournalKernel(b, true)
	for _, src := range []string{"1 + 1", "pwd"} {
		for _, k := range []struct {
			name, sock string
		}{{"off", off}, {"on", on}} {
			b.Run(k.name+"/"+src, func(b *testing.B) {
				c, err := dialRaw(k.sock, "bench")
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				params := []byte(`{"src":` + strconv.Quote(src) + `}`)
				id := 10
				for b.Loop() {
					id++
					resp, err := c.call(id, "exec", params)
					if err != nil {
						b.Fatal(err)
					}
					if resp.Error != nil {
						b.Fatalf("exec %q: error %d %s", src, resp.Error.Code, resp.Error.Message)
					}
				}
			})
		}
	}
	// The MCP facade's exec (every shoal_exec): mode and position set,
	// and timeout_ms, which makes it a task handed over if it runs long.
	b.Run("on/1 + 1 as shoal_exec sends it", func(b *testing.B) {
		c, err := dialRaw(on, "bench")
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		params := []byte(`{"src":"1 + 1","mode":"run","position":"value","timeout_ms":250}`)
		id := 10
		for b.Loop() {
			id++
			resp, err := c.call(id, "exec", params)
			if err != nil {
				b.Fatal(err)
			}
			if resp.Error != nil {
				b.Fatalf("exec: error %d %s", resp.Error.Code, resp.Error.Message)
			}
		}
	})
	b.Run("row", func(b *testing.B) {
		db, err := journal.Open(filepath.Join(b.TempDir(), "journal.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		e := journal.Entry{Session: "bench", Principal: "uid:0", Cwd: "/tmp", Src: "1 + 1", Verdict: "allow",
			Outputs: []journal.Output{{Kind: "value", Hash: "blake3:154ba3d129b002c91233dd5d2e7f8ffc28dc0699b6691e625812179d8394aa8d", Len: 17}}}
		for b.Loop() {
			id, err := db.Begin(&e)
			if err != nil {
				b.Fatal(err)
			}
			if err := db.Finish(id, &journal.Entry{OK: true, Verdict: "allow"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("record", func(b *testing.B) {
		db, err := journal.Open(filepath.Join(b.TempDir(), "journal.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		e := journal.Entry{Session: "bench", Principal: "uid:0", Cwd: "/tmp", Src: "1 + 1", Verdict: "allow", OK: true,
			Outputs: []journal.Output{{Kind: "value", Hash: "blake3:154ba3d129b002c91233dd5d2e7f8ffc28dc0699b6691e625812179d8394aa8d", Len: 17}}}
		for b.Loop() {
			if _, err := db.Record(&e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("insert", func(b *testing.B) {
		db, err := sql.Open("sqlite", filepath.Join(b.TempDir(), "bare.db")+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(`CREATE TABLE t(id INTEGER PRIMARY KEY, src TEXT, ts INTEGER)`); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			tx, err := db.Begin()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tx.Exec(`INSERT INTO t(src, ts) VALUES (?, ?)`, "1 + 1", time.Now().UnixNano()); err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchJournalKernel starts an owner-only kernel, journalling to a temp
// state directory when journal is set, and returns its socket.
func benchJournalKernel(tb testing.TB, journal bool) string {
	tb.Helper()
	base := loadTempDir(tb)
	dir := filepath.Join(base, "work")
	if err := os.Mkdir(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	cfg := Config{Version: "bench", Dir: dir, Env: []string{"HOME=" + base, "PATH=/usr/bin:/bin"}}
	if journal {
		cfg.StateDir = filepath.Join(base, "state")
	}
	return serveBenchKernel(tb, base, cfg)
}

// BenchmarkJournalQuery measures journal.query for the newest 100 rows of
// one principal out of a 100,000-entry journal (ten principals, a tenth
// of the rows each), end to end over the socket, as the kernel owner (a
// principal filter over the whole journal) and as that principal (its
// own scope). It reports p50 and p99 of the round trips:
//
//	go test -run '^$' -bench JournalQuery -benchtime 2000x ./internal/kernel/
func BenchmarkJournalQuery(b *testing.B) {
	base := loadTempDir(b)
	state := filepath.Join(base, "state")
	db, err := journal.Open(filepath.Join(state, "journal.db"))
	if err != nil {
		b.Fatal(err)
	}
	const rows = 100_000
	for i := range rows {
		e := journal.Entry{Session: "s", Principal: "agent:p" + strconv.Itoa(i%10), Cwd: "/tmp", Src: "ls .",
			Verdict: "allow", Effects: []byte(`[{"kind":"fs_read","path":"/tmp"}]`)}
		if _, err := db.Begin(&e); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	store := filepath.Join(base, "tokens.json")
	_, secret, err := auth.Open(store).Create("agent:p3", "bench", nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	pol := testPolicy(b, `[principal."agent:p3"]
journal_read = true
`)
	sock := serveBench(b, base, state, Config{TokenStore: store, Policy: pol})
	for _, bc := range []struct{ name, token, params string }{
		{"owner-principal-filter", "", `{"principal":"agent:p3","limit":100}`},
		{"principal-own-scope", secret, `{"limit":100}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := dialBench(sock, bc.token)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			var lat []time.Duration
			id := 10
			for b.Loop() {
				id++
				// The round trip is timed to the whole answer read off
				// the socket. The client's checks are untimed, and only
				// the first answer is decoded whole: the client shares
				// this process (and its garbage collector) with the
				// kernel, which a real client does not, and decoding
				// every 100-entry answer made a collection every few
				// queries that showed in the kernel's p99. The others
				// are checked valid and counted without allocating.
				t0 := time.Now()
				line, err := c.exchange(id, "journal.query", []byte(bc.params))
				lat = append(lat, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				var n int
				if len(lat) == 1 {
					n, err = arrayAnswer(line, id)
				} else {
					n, err = countEntries(line, id)
				}
				if err != nil {
					b.Fatal(err)
				}
				if n != 100 {
					b.Fatalf("journal.query answered %d entries, want 100", n)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// countEntries checks that line is valid JSON answering request id and
// counts the journal entries in it (each starts {"id":), without
// decoding it.
func countEntries(line []byte, id int) (int, error) {
	if !json.Valid(line) {
		return 0, errors.New("answer is not JSON")
	}
	head := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":[`
	if !bytes.HasPrefix(line, []byte(head)) {
		return 0, fmt.Errorf("answer does not start %s: %.80s", head, line)
	}
	return bytes.Count(line, []byte(`{"id":`)), nil
}

// arrayAnswer checks that line answers request id with a JSON array, and
// returns its length.
func arrayAnswer(line []byte, id int) (int, error) {
	var resp struct {
		ID     json.RawMessage   `json:"id"`
		Result []json.RawMessage `json:"result"`
		Error  json.RawMessage   `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		return 0, fmt.Errorf("bad frame: %w", err)
	}
	if resp.Error != nil || string(resp.ID) != strconv.Itoa(id) {
		return 0, fmt.Errorf("answer id %s, error %s", resp.ID, resp.Error)
	}
	return len(resp.Result), nil
}

// serveBenchKernel serves a kernel of cfg on a socket in base until the
// benchmark ends, and returns the socket.
func serveBenchKernel(tb testing.TB, base string, cfg Config) string {
	_, sock := serveTestKernel(tb, base, cfg)
	return sock
}

// serveTestKernel serves cfg on base/k.sock until tb ends, and returns the
// server and its socket.
func serveTestKernel(tb testing.TB, base string, cfg Config) (*Server, string) {
	tb.Helper()
	sock := filepath.Join(base, "k.sock")
	l, err := Listen(sock, true)
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			tb.Errorf("Serve returned %v", err)
		}
	})
	return srv, sock
}
