//go:build linux

package hostile

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
)

// TestHostileWALBudget: a flood of small rows into the smallest disk
// budget. Several clients run `exec "N + 1"` as fast as the kernel answers
// (tens of thousands of rows: many times the 1 MiB budget in rows), and
// the state directory's bytes (the database, its WAL, the intent log, the
// blobs: stateBytes) are sampled every walBudgetSample execs. Before the
// WAL's bound followed the budget (twenty-second round), an applier batch
// of thousands of rows, or a prune of thousands, wrote its pages to the
// WAL between two checks and the directory peaked at 4–12 MB; now it must
// stay within the budget plus the documented slack (docs/kernel.md,
// "Disk budget"), with the kernel alive and the owner's heartbeat served.
func TestHostileWALBudget(t *testing.T) {
	const (
		budget  = 1 << 20 // MinJournalBytes
		clients = 8
		execs   = 24_000
		// slack is the documented slack under such a flood at this
		// budget (docs/kernel.md, "Disk budget"): the WAL's eighth and one
		// transaction past it, the intent log's segments and pending
		// writes (an eighth each), and the database file's free pages,
		// which keep the largest size its live pages reached (the budget
		// and the rows applied while a check ran).
		slack = 2 * budget
	)
	k := Start(t, Options{MemCap: 2 << 30, Flags: []string{"--journal-max-bytes", fmt.Sprint(budget)}})
	ctx := Ctx(t)
	hb := k.Heartbeat(t)
	var next atomic.Int64
	var mu sync.Mutex
	var peak, peakWAL int64
	var peakParts map[string]int64
	var samples int
	sample := func() {
		parts := stateParts(t, k.StateDir)
		n, w := parts["total"], parts["wal"]
		mu.Lock()
		samples++
		if n > peak {
			peak, peakWAL, peakParts = n, w, parts
		}
		mu.Unlock()
	}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		c := k.Owner(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > execs {
					return
				}
				if _, err := c.Exec(ctx, client.ExecParams{Src: fmt.Sprintf("%d + 1", i)}); err != nil {
					errs <- fmt.Errorf("exec %d: %w", i, err)
					return
				}
				if i%walBudgetSample == 0 {
					sample()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	took := time.Since(start)
	sample()
	hb.Stop(t)
	k.Alive(t)
	end, endWAL := stateBytes(t, k.StateDir)
	t.Logf("at the peak: %v", peakParts)
	t.Logf("%d execs in %v (%.0f a second), %d samples: state directory peak %d bytes (WAL %d), end %d (WAL %d); budget %d, allowed %d",
		execs, took.Round(time.Millisecond), float64(execs)/took.Seconds(), samples, peak, peakWAL, end, endWAL, budget, budget+slack)
	if peak > budget+slack {
		t.Errorf("the state directory reached %d bytes (WAL %d), past the %d-byte budget plus its slack %d", peak, peakWAL, budget, slack)
	}
}

// walBudgetSample is how many execs TestHostileWALBudget runs between
// samples of the state directory.
const walBudgetSample = 250

// stateParts is stateBytes by part: the database file, its WAL, its
// shared-memory index, the intent log's segments, the blobs, and their
// total (the token store left out).
func stateParts(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	parts := map[string]int64{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a blob swept while walking
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), "tokens") {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		part := "blobs"
		switch name := d.Name(); {
		case name == "journal.db":
			part = "db"
		case strings.HasSuffix(name, "-wal"):
			part = "wal"
		case strings.HasSuffix(name, "-shm"):
			part = "shm"
		case strings.Contains(name, "-log."):
			part = "log"
		}
		parts[part] += fi.Size()
		parts["total"] += fi.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return parts
}
