package events

import (
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"
)

var (
	alice = Scope{Principal: "alice", Session: "default"}
	bob   = Scope{Principal: "bob", Session: "default"}
)

// recorder is a Sink that keeps every event it is given.
type recorder struct {
	mu     sync.Mutex
	evs    []Event
	notify chan struct{}
}

func newRecorder() *recorder { return &recorder{notify: make(chan struct{}, 1)} }

func (r *recorder) sink(ev Event) error {
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	return nil
}

func (r *recorder) events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.evs...)
}

// waitFor waits until ok holds for the recorded events.
func (r *recorder) waitFor(t *testing.T, what string, ok func([]Event) bool) []Event {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		evs := r.events()
		if ok(evs) {
			return evs
		}
		select {
		case <-r.notify:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; have %d events", what, len(evs))
		}
	}
}

// lastSeq reports whether the recorded events reach seq want, delivered
// or reported by a dropped marker.
func lastSeq(want uint64) func([]Event) bool {
	return func(evs []Event) bool {
		if len(evs) == 0 {
			return false
		}
		last := evs[len(evs)-1]
		if last.Synthetic() {
			var d Dropped
			return json.Unmarshal(last.Payload, &d) == nil && d.LatestSeq >= want
		}
		return last.Seq >= want
	}
}

func num(i int) json.RawMessage { return json.RawMessage(strconv.Itoa(i)) }

func seqs(evs []Event) []uint64 {
	out := make([]uint64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Seq
	}
	return out
}

func seqRange(from, to uint64) []uint64 {
	out := []uint64{}
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

func dropped(t *testing.T, ev Event) Dropped {
	t.Helper()
	if !ev.Synthetic() {
		t.Fatalf("event seq %d is not a dropped marker", ev.Seq)
	}
	var d Dropped
	if err := json.Unmarshal(ev.Payload, &d); err != nil {
		t.Fatalf("marker payload %s: %v", ev.Payload, err)
	}
	return d
}

// published fails the test when a publish was refused and returns its
// event.
func published(t *testing.T) func(Event, error) Event {
	return func(ev Event, err error) Event {
		t.Helper()
		if err != nil {
			t.Fatalf("publish refused: %v", err)
		}
		return ev
	}
}
