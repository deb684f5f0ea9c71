package journal

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// OnFinish is told of rows outside the write lock, and still in seq
// order, one at a time, each before the write that finished it returns:
// many writers at once (Record, and Begin then Finish), with a hook that
// checks its calls never overlap and lets other writes in while it runs.
func TestOnFinishOrderConcurrent(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var (
		mu     sync.Mutex
		told   = map[uint64]bool{}
		last   uint64
		inside bool
		bad    []string
	)
	d.OnFinish(func(e *Entry) {
		mu.Lock()
		if inside {
			bad = append(bad, fmt.Sprintf("seq %d told while another row was", e.Seq))
		}
		inside = true
		if e.Seq != last+1 {
			bad = append(bad, fmt.Sprintf("seq %d told after %d", e.Seq, last))
		}
		last = e.Seq
		mu.Unlock()
		// Writes go on while a row is told: the write lock is free.
		_ = d.LastSeq()
		mu.Lock()
		told[e.Seq] = true
		inside = false
		mu.Unlock()
	})
	const writers, each = 8, 60
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				e := &Entry{Session: fmt.Sprint("s", w), Principal: "p", Src: "1", OK: true, Transcript: true, RefN: int64(i + 1)}
				if i%3 == 0 {
					id, err := d.Begin(&Entry{Session: e.Session, Principal: "p", Src: "rm x"})
					if err == nil {
						err = d.Finish(id, e)
					}
					if err != nil {
						errs <- err
						return
					}
				} else if _, err := d.Record(e); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				ok := told[e.Seq]
				mu.Unlock()
				if !ok {
					errs <- fmt.Errorf("write of seq %d returned before its row was told", e.Seq)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
	if last != writers*each {
		t.Errorf("last told seq %d, want %d", last, writers*each)
	}
}
