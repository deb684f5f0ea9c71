package journal

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkApplySessions is BenchmarkApply for rows shaped like the
// kernel's `exec "1 + 1"` under many connections: each row one value
// output, a ref and a transcript number, the rows spread round-robin over
// 32 sessions of one principal (as fastpath.BenchmarkThroughput32 makes
// them), applied in batches of ApplyBatch. Besides the wall time per row it
// reports cpu-us/row, the process's user and system CPU while applying:
// the figure that a loaded machine leaves comparable.
func BenchmarkApplySessions(b *testing.B) {
	const sessions = 32
	d, err := Open(filepath.Join(b.TempDir(), "journal.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.StopTimer()
	close(d.ap.stop)
	<-d.ap.done
	refs := make([]int64, sessions)
	var cpu time.Duration
	for done := 0; done < b.N; {
		for range min(b.N-done, ApplyBatch) {
			s := done % sessions
			refs[s]++
			e := &Entry{Session: fmt.Sprintf("s%02d", s), Principal: "owner", Cwd: "/home/owner", Src: "1 + 1",
				OK: true, Verdict: "allowed", RefN: refs[s], Transcript: true, Outputs: benchOutputs[:1]}
			if _, err := d.Record(e); err != nil {
				b.Fatal(err)
			}
			done++
		}
		batch := takePending(d)
		before := cpuTime(b)
		b.StartTimer()
		applyInBatches(b, d, batch)
		b.StopTimer()
		cpu += cpuTime(b) - before
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/row")
	d.ap.stop, d.ap.done = make(chan struct{}), make(chan struct{})
	go d.runApplier()
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
