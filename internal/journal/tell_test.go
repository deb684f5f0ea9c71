package journal

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// Rows are told of (OnFinish) one at a time, in seq order, however many
// writers finish rows at once (and begin and finish them through the
// applier's driver-level statements); and LastSeq never reports a seq
// whose row has not yet been told of.
func TestTellInSeqOrder(t *testing.T) {
	d := openTemp(t)
	var told atomic.Uint64
	var seen []uint64
	d.OnFinish(func(e *Entry) {
		seen = append(seen, e.Seq)
		told.Store(e.Seq)
	})
	const writers, each = 8, 150
	stop := make(chan struct{})
	ahead := make(chan string, 1)
	var reader sync.WaitGroup
	reader.Add(1)
	go func() {
		defer reader.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if last, got := d.LastSeq(), told.Load(); last > got {
				select {
				case ahead <- fmt.Sprintf("LastSeq %d before row %d was told of", last, got+1):
				default:
				}
				return
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				e := &Entry{Session: fmt.Sprintf("s%d", w), Principal: "p", Src: "1", OK: true, Transcript: true}
				if i%4 == 0 {
					id, err := d.Begin(e)
					if err == nil {
						err = d.Finish(id, e)
					}
					if err != nil {
						errs <- err
						return
					}
					continue
				}
				if _, err := d.Record(e); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	reader.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	select {
	case msg := <-ahead:
		t.Fatal(msg)
	default:
	}
	if len(seen) != writers*each {
		t.Fatalf("told of %d rows, want %d", len(seen), writers*each)
	}
	for i, s := range seen {
		if s != uint64(i+1) {
			t.Fatalf("told of seq %d at %d: %v…", s, i, seen[max(0, i-3):i+1])
		}
	}
}
