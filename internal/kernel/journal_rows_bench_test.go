package kernel

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/journal"
)

// BenchmarkJournalQueryRows is BenchmarkJournalQuery's owner case over
// rows shaped like internal/fastpath's BenchmarkJournalQuery100k's
// (finished, with an AST, two effects and three outputs), which that
// benchmark's rows (begun, none of these) leave out: the kernel's CPU and
// allocation per query for the pages the row measures, in process (the
// CPU is the process's: the kernel's and the client's).
//
//	go test -run '^$' -bench 'JournalQueryRows' -benchtime 2000x -benchmem ./internal/kernel/
func BenchmarkJournalQueryRows(b *testing.B) {
	base := loadTempDir(b)
	state := filepath.Join(base, "state")
	db, err := journal.Open(filepath.Join(state, "journal.db"))
	if err != nil {
		b.Fatal(err)
	}
	recordBenchRows(b, db, 20_000)
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	sock := serveBench(b, base, state, Config{})
	c, err := dialBench(sock, "")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	c.r = bufio.NewReaderSize(c.r, 1<<20) // a page of these rows is some 75 KB
	params := []byte(`{"principal":"agent:p3","limit":100}`)
	id := 10
	cpu0 := processCPU(b)
	for b.Loop() {
		id++
		line, err := c.exchange(id, "journal.query", params)
		if err != nil {
			b.Fatal(err)
		}
		n, err := countEntries(line, id)
		if err != nil {
			b.Fatal(err)
		}
		if n != 100 {
			b.Fatalf("journal.query answered %d entries, want 100", n)
		}
	}
	// The process's CPU (the kernel's and this client's) per query, less
	// moved by the shared machine's load than the wall time.
	b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-us/query")
}

// processCPU is the CPU time this process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// recordBenchRows records n finished rows shaped like internal/fastpath's
// BenchmarkJournalQuery100k's (an AST, two effects, three outputs), spread
// over 50 sessions and ten principals (agent:p0 …).
func recordBenchRows(b *testing.B, db *journal.DB, n int) {
	b.Helper()
	outs := []journal.Output{
		{Kind: journal.OutValue, Hash: "blake3:0c5f2e9f3b1c4d6a8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7", Len: 812},
		{Kind: journal.OutStdout, Hash: "blake3:1d6f3a0f4c2d5e7b9f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708", Len: 4096},
		{Kind: journal.OutStderr, Hash: "blake3:2e7a4b1a5d3e6f8cafa1b2c3d4e5f608192a3b4c5d6e7f8091a2b3c4d5e6f7081", Len: 3},
	}
	for i := range n {
		e := journal.Entry{Session: "sess-" + strconv.Itoa(i%50), Principal: "agent:p" + strconv.Itoa(i%10),
			Cwd: "/home/alice/src", Src: "ls -la | where size > 1000", OK: true, Verdict: "allow",
			AST:     json.RawMessage(`{"stmts":[{"k":"pipe","parts":[{"k":"cmd","name":"ls","args":["-la"]},{"k":"where"}]}]}`),
			Effects: json.RawMessage(`[{"kind":"fs_read","path":"/home/alice/src"},{"kind":"proc_spawn","program":"ls"}]`),
			Outputs: outs}
		if _, err := db.Record(&e); err != nil {
			b.Fatal(err)
		}
	}
}
