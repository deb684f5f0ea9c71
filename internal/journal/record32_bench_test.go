package journal

import (
	"encoding/json"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRecord32 is the journal's side of the kernel's 32-connection
// throughput row: 32 goroutines each Record rows shaped like `exec "1 +
// 1"`'s, with an OnFinish hook that encodes each row (as the kernel's
// event hook does). It reports the process's CPU a row (the writers', the
// applier's and the checkpointer's) and rows a second.
func BenchmarkRecord32(b *testing.B) {
	d, err := Open(filepath.Join(b.TempDir(), "journal.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	var sink []byte
	d.OnFinish(func(e *Entry) {
		sink, _ = json.Marshal(e)
	})
	const writers = 32
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	t0 := time.Now()
	b.ResetTimer()
	var wg sync.WaitGroup
	per := max(b.N/writers, 1)
	for w := range writers {
		wg.Go(func() {
			for range per {
				e := &Entry{Session: "load-" + string(rune('a'+w)), Principal: "local", Cwd: "/tmp", Src: "1 + 1",
					OK: true, Verdict: "allowed", Transcript: true,
					Outputs: []Output{{Kind: OutValue, Hash: benchOutputs[0].Hash, Len: 1}}}
				if _, err := d.Record(e); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	el := time.Since(t0)
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	rows := float64(per * writers)
	cpu := time.Duration(syscall.TimevalToNsec(ru1.Utime) - syscall.TimevalToNsec(ru0.Utime) +
		syscall.TimevalToNsec(ru1.Stime) - syscall.TimevalToNsec(ru0.Stime))
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/rows, "cpu-us/row")
	b.ReportMetric(rows/el.Seconds(), "rows/s")
	b.ReportMetric(0, "ns/op")
	_ = sink
}
