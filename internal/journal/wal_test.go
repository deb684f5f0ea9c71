package journal

import (
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// walLoad writes rows of srcBytes of source each (about total bytes in
// all) through Record while two readers query the journal without pause,
// sampling the WAL file's size throughout; it returns the largest size
// seen and the truncations the checkpointer made.
func walLoad(t testing.TB, bound int64, total, srcBytes int) (maxWAL, truncated, failed int64) {
	old := maxWALBytes
	maxWALBytes = bound
	defer func() { maxWALBytes = old }()
	path := filepath.Join(t.TempDir(), "j.db")
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var stop atomic.Bool
	var wg sync.WaitGroup
	var peak atomic.Int64
	sample := func() {
		if n := walBytes(path); n > peak.Load() {
			peak.Store(n)
		}
	}
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				es, _, err := d.Query(Query{Limit: 20 + r})
				if err != nil {
					t.Error(err)
					return
				}
				ReleasePage(es)
				sample()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			sample()
			time.Sleep(time.Millisecond)
		}
	}()
	src := strings.Repeat("x", srcBytes)
	for i := range total / srcBytes {
		if _, err := d.Record(&Entry{Session: "s", Principal: "p" + strconv.Itoa(i%7), Src: src + strconv.Itoa(i),
			StartNS: int64(i + 1), FinishNS: int64(i + 2), Verdict: "allowed", OK: true}); err != nil {
			t.Fatal(err)
		}
		sample()
		if i%4 == 3 {
			// Steady small batches: apply what is pending every 4
			// rows (a writer left alone fills batches of up to
			// MaxPendingBytes, which the bound cannot split).
			if err := d.sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	done, fails := d.WALTruncations()
	return peak.Load(), done, fails
}

// Under a sustained write load beside continual readers, the WAL stays
// within maxWALBytes and what a few of the applier's batches add before
// the checkpointer runs, while ten times the bound and more is written
// through it: the checkpointer truncates it. (Without the bound, the same
// load grows the WAL with what is written: TestWALUnboundedWithout.)
func TestWALBoundedUnderReaders(t *testing.T) {
	const bound = 1 << 20
	total := 12 * bound
	maxWAL, done, failed := walLoad(t, bound, total, 4096)
	t.Logf("bound %d: largest WAL %d bytes, %d truncations, %d attempts failed", bound, maxWAL, done, failed)
	if done == 0 {
		t.Errorf("no truncation of the WAL after writing %d bytes past a bound of %d", total, bound)
	}
	// Slack: the batches applied between the WAL passing the bound and
	// the truncation (readers apply what is pending, so batches are
	// small here).
	if slack := int64(bound); maxWAL > bound+slack {
		t.Errorf("the WAL reached %d bytes; bound %d + slack %d", maxWAL, bound, slack)
	}
}

// TestWALUnboundedWithout is the same load with the bound out of reach:
// the passive checkpoints alone let the WAL grow past where the bound
// holds it (the defect the bound fixes), so the test above can fail.
func TestWALUnboundedWithout(t *testing.T) {
	if testing.Short() {
		t.Skip("the baseline of TestWALBoundedUnderReaders")
	}
	const bound = 1 << 20
	maxWAL, done, _ := walLoad(t, 1<<62, 12*bound, 4096)
	t.Logf("no bound: largest WAL %d bytes, %d truncations", maxWAL, done)
	if done != 0 {
		t.Errorf("%d truncations without a bound", done)
	}
	if maxWAL <= 2*bound {
		t.Logf("the WAL stayed at %d bytes without the bound: the readers let passive checkpoints reuse it this run", maxWAL)
	}
}
