//go:build linux

package journal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// applyVariantAST is the syntax encoder's JSON of `1 + 1`, what the
// kernel records for BenchmarkThroughput32's rows (224 bytes).
const applyVariantAST = `{"stmts":[{"kind":"expr","x":{"kind":"binary","op":"+","l":{"kind":"int","value":1,"span":{"start":0,"end":1}},"r":{"kind":"int","value":1,"span":{"start":4,"end":5}},"span":{"start":0,"end":5}},"span":{"start":0,"end":5}}]}`

// BenchmarkApplyVariants measures what a candidate change to the journal's
// row would save the applier, in one process: the same kernel-shaped rows
// (`exec "1 + 1"` over 32 sessions: the AST above, one value output, a
// ref and a transcript number) are applied to two journals, batch by
// batch, taking turns going first. The second journal ("variant") has the
// change named by the sub-benchmark, simulated: a shorter AST in the row,
// a 9-byte output hash (what a hash kept once and named by an integer
// would leave a row), the three session-keyed indexes dropped (the upper
// bound of folding them), or batches three times as large. Each batch is
// one transaction (applyRaw, no background checkpoint), after which the
// WAL's frames are counted and it is truncated. Reported: the applying
// thread's CPU a row (RUSAGE_THREAD) for each side and their difference,
// WAL frames a row, and each side's pages a row at the end (dbstat).
// Run with -benchtime 1x: an iteration is 60 batches of 740 rows.
func BenchmarkApplyVariants(b *testing.B) {
	for _, v := range []string{"same", "ast-90", "no-ast", "hash-9", "hash-9+ast-90", "no-session-indexes", "batch-x3", "row-at-a-time"} {
		b.Run(v, func(b *testing.B) {
			for b.Loop() {
				applyVariantPair(b, v)
			}
		})
	}
}

func applyVariantPair(b *testing.B, v string) {
	const sessions, batchN, batches = 32, 740, 60
	open := func(name string) *DB {
		d, err := Open(filepath.Join(b.TempDir(), name))
		if err != nil {
			b.Fatal(err)
		}
		close(d.ap.stop)
		<-d.ap.done
		return d
	}
	dbs := [2]*DB{open("base.db"), open("variant.db")}
	defer func() {
		for _, d := range dbs {
			d.ap.stop, d.ap.done = make(chan struct{}), make(chan struct{})
			go d.runApplier()
			d.Close()
		}
	}()
	if v == "row-at-a-time" {
		// the base applies a row a statement, as before multi-row inserts
		dbs[0].rowAtATime = true
	} else {
		// every other candidate is measured against the applier as it is
		dbs[0].rowAtATime, dbs[1].rowAtATime = false, false
	}
	if v == "no-session-indexes" {
		for _, ix := range []string{"entries_session", "entries_tseq", "entries_ref"} {
			if _, err := dbs[1].db.Exec(`DROP INDEX ` + ix); err != nil {
				b.Fatal(err)
			}
		}
	}
	short := json.RawMessage(`{"c":"` + strings.Repeat("x", 84) + `"}`)
	var refs [2][sessions]int64
	var cpu [2]time.Duration
	var frames [2]int64
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for k := range batches {
		for turn := range 2 {
			side := turn ^ (k & 1)
			d := dbs[side]
			for i := range batchN {
				s := i % sessions
				refs[side][s]++
				ast, hash := json.RawMessage(applyVariantAST), "blake3:0c5f2e9f3b1c4d6a8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7"
				if side == 1 {
					switch v {
					case "ast-90":
						ast = short
					case "no-ast":
						ast = nil
					case "hash-9":
						hash = "h12345678"
					case "hash-9+ast-90":
						ast, hash = short, "h12345678"
					}
				}
				e := &Entry{Session: "load-" + strconv.Itoa(s), Principal: "owner", Cwd: "/home/owner", Src: "1 + 1", AST: ast,
					OK: true, Verdict: "allowed", RefN: refs[side][s], Transcript: true, Outputs: []Output{{Kind: OutValue, Hash: hash, Len: 1}}}
				if _, err := d.Record(e); err != nil {
					b.Fatal(err)
				}
			}
			if v == "batch-x3" && side == 1 && k%3 != 2 && k != batches-1 {
				continue
			}
			ops := takePending(d)
			runtime.GC()
			before := threadCPU(b)
			d.ap.amu.Lock()
			err := d.w.Raw(func(any) error { return d.applyRaw(ops) })
			d.ap.amu.Unlock()
			cpu[side] += threadCPU(b) - before
			if err != nil {
				b.Fatal(err)
			}
			d.ap.applied.Store(ops[len(ops)-1].LSN)
			if fi, err := os.Stat(d.path + "-wal"); err == nil && fi.Size() > 32 {
				frames[side] += (fi.Size() - 32) / (4096 + 24)
			}
			if _, err := d.w.ExecContext(context.Background(), `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				b.Fatal(err)
			}
		}
	}
	n := float64(batchN * batches)
	us := func(t time.Duration) float64 { return float64(t.Nanoseconds()) / 1e3 / n }
	b.ReportMetric(us(cpu[0]), "cpu-us/row-base")
	b.ReportMetric(us(cpu[1]), "cpu-us/row-variant")
	b.ReportMetric(us(cpu[0]-cpu[1]), "saved-us/row")
	b.ReportMetric(float64(frames[0])/n, "frames/row-base")
	b.ReportMetric(float64(frames[1])/n, "frames/row-variant")
	for side, name := range []string{"pages/row-base", "pages/row-variant"} {
		var pages int64
		if err := dbs[side].db.QueryRow(`SELECT count(*) FROM dbstat WHERE name LIKE 'entries%' OR name LIKE 'outputs%'`).Scan(&pages); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(pages)/n, name)
	}
}

// threadCPU is the calling thread's user and system CPU time so far.
func threadCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
