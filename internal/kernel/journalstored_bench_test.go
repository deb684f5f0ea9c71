package kernel

import (
	"encoding/json"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/proto"
)

// BenchmarkJournalAnswerStored is journal.query's own work on a page, in
// process and without the socket: the Query of the newest 100 rows of
// one principal and the answer frame written from them, with the rows'
// stored texts decoded and copied (decoded: the path before
// Query.Stored) and passed through (stored), alternated query by query
// so that both see the same machine. Rows are shaped like
// internal/fastpath's BenchmarkJournalQuery100k's. It reports the median
// and mean of each, and the bytes allocated per query of each.
//
//	go test -run '^$' -bench 'JournalAnswerStored' -benchtime 4000x ./internal/kernel/
func BenchmarkJournalAnswerStored(b *testing.B) {
	db, err := journal.Open(filepath.Join(b.TempDir(), "journal.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	recordBenchRows(b, db, 5_000)
	req := &proto.Request{ID: json.RawMessage("7")}
	page := func(stored bool) int {
		entries, _, err := db.Query(journal.Query{Principal: "agent:p3", Limit: 100, Stored: stored})
		if err != nil {
			b.Fatal(err)
		}
		frame, err := journalAnswer(req, entries)
		if err != nil {
			b.Fatal(err)
		}
		n := len(frame)
		releaseFrame(frame)
		journal.ReleasePage(entries)
		return n
	}
	if a, s := page(false), page(true); a != s {
		b.Fatalf("answers of %d and %d bytes", a, s)
	}
	var times [2][]time.Duration
	var bytes [2]uint64
	for b.Loop() {
		first := len(times[0])%2 == 1 // alternate which runs first
		for _, stored := range [2]bool{first, !first} {
			i := 0
			if stored {
				i = 1
			}
			m0 := allocated()
			t0 := time.Now()
			page(stored)
			times[i] = append(times[i], time.Since(t0))
			bytes[i] += allocated() - m0
		}
	}
	for i, name := range [2]string{"decoded", "stored"} {
		var sum time.Duration
		for _, d := range times[i] {
			sum += d
		}
		mean := float64(sum.Nanoseconds()) / float64(len(times[i])) / 1e3
		slices.Sort(times[i])
		b.ReportMetric(float64(times[i][len(times[i])/2].Nanoseconds())/1e3, name+"-p50-us")
		b.ReportMetric(mean, name+"-mean-us")
		b.ReportMetric(float64(bytes[i])/float64(len(times[i])), name+"-B/query")
	}
}

// allocated is the bytes this process has allocated on the heap so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
