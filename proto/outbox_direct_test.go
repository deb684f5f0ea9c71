package proto

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// stingySocket is a TryWriter whose peer takes at most take bytes per
// TryWrite (0: everything) while Write, the writer goroutine's path, waits
// for release and then takes everything.
type stingySocket struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	take    int
	tries   int
	release chan struct{}
}

func (s *stingySocket) TryWrite(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tries++
	n := len(p)
	if s.take > 0 {
		n = min(n, s.take)
	}
	s.buf.Write(p[:n])
	return n, nil
}

func (s *stingySocket) Write(p []byte) (int, error) {
	if s.release != nil {
		<-s.release
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *stingySocket) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// TestOutboxWritesDirectlyWhenIdle checks that an idle outbox writes a
// frame on the caller's goroutine: it is out, and handed back, when Send
// returns.
func TestOutboxWritesDirectlyWhenIdle(t *testing.T) {
	s := &stingySocket{release: make(chan struct{})} // the writer goroutine would block
	o := NewOutbox(s, 4)
	released := 0
	for i := range 3 {
		if err := o.SendOwned([]byte(`{"n":`+string(rune('0'+i))+"}\n"), func([]byte) { released++ }); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := s.String(), "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n"; got != want || released != 3 {
		t.Fatalf("wrote %q, released %d; want %q written directly and 3 released", got, released, want)
	}
	if o.Written() != 3 || o.Queued() != 0 {
		t.Fatalf("written %d, queued %d", o.Written(), o.Queued())
	}
	close(s.release)
	o.Close()
	<-o.Done()
}

// TestOutboxPartialDirectWriteKeepsOrder checks that when the peer takes
// only part of a directly written frame, its rest goes out before frames
// queued after it, whole and in order, and the frame is released once.
func TestOutboxPartialDirectWriteKeepsOrder(t *testing.T) {
	s := &stingySocket{take: 5, release: make(chan struct{})}
	o := NewOutbox(s, 8)
	first := []byte(`{"first":"` + strings.Repeat("x", 100) + "\"}\n")
	var released [][]byte
	var mu sync.Mutex
	if err := o.SendOwned(first, func(b []byte) { mu.Lock(); released = append(released, b); mu.Unlock() }); err != nil {
		t.Fatal(err)
	}
	if got := s.String(); got != string(first[:5]) {
		t.Fatalf("direct part %q", got)
	}
	// The writer is busy (blocked on the rest), so these queue.
	for _, f := range []string{"{\"a\":1}\n", "{\"b\":2}\n"} {
		if err := o.Send([]byte(f)); err != nil {
			t.Fatal(err)
		}
	}
	if o.Queued() == 0 {
		t.Fatal("the rest and the queued frames are not counted")
	}
	close(s.release)
	o.Close()
	<-o.Done()
	if got, want := s.String(), string(first)+"{\"a\":1}\n{\"b\":2}\n"; got != want {
		t.Fatalf("wrote %q, want %q", got, want)
	}
	if len(released) != 1 || !bytes.Equal(released[0], first) {
		t.Fatalf("released %q, want the whole first frame once", released)
	}
	if o.Queued() != 0 || o.Written() != 3 {
		t.Fatalf("queued %d, written %d after drain", o.Queued(), o.Written())
	}
}

// TestOutboxRestFlushedOnClose checks that Close right after a partial
// direct write still writes the rest before Done.
func TestOutboxRestFlushedOnClose(t *testing.T) {
	s := &stingySocket{take: 3}
	o := NewOutbox(s, 2)
	frame := []byte("{\"k\":\"0123456789\"}\n")
	if err := o.Send(frame); err != nil {
		t.Fatal(err)
	}
	o.Close()
	select {
	case <-o.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("outbox did not finish after Close")
	}
	if s.String() != string(frame) {
		t.Fatalf("wrote %q", s.String())
	}
}

// refuseAll is a Charge that refuses every growth.
type refuseAll struct{}

var errNoRoom = errors.New("no room")

func (refuseAll) Grow(int64) error { return errNoRoom }
func (refuseAll) Shrink(int64)     {}

// TestOutboxRestOverBudgetBreaks checks that a rest the budget refuses
// ends the connection (ErrOutboxFull, the outbox broken) rather than
// dropping half a frame.
func TestOutboxRestOverBudgetBreaks(t *testing.T) {
	s := &stingySocket{take: 4}
	o := NewOutbox(s, 2, OutboxCharge(refuseAll{}))
	err := o.Send([]byte("{\"k\":\"0123456789\"}\n"))
	if !errors.Is(err, ErrOutboxFull) || !errors.Is(err, errNoRoom) {
		t.Fatalf("send = %v, want ErrOutboxFull wrapping the budget's error", err)
	}
	if err := o.Send([]byte("{}\n")); !errors.Is(err, ErrOutboxBroken) {
		t.Fatalf("send after = %v, want ErrOutboxBroken", err)
	}
	o.Close()
	<-o.Done()
}

// TestOutboxDirectAndQueuedConcurrent sends from many goroutines through a
// peer that takes a few bytes at a time: every frame arrives whole.
func TestOutboxDirectAndQueuedConcurrent(t *testing.T) {
	s := &stingySocket{take: 7}
	o := NewOutbox(s, 64)
	var wg sync.WaitGroup
	var sent sync.Map
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				f := []byte(`{"g":` + string(rune('0'+g)) + `,"i":"` + strings.Repeat("y", i) + "\"}\n")
				if err := o.Send(f); err == nil {
					sent.Store(string(f), true)
				} else if !errors.Is(err, ErrOutboxFull) {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	o.Close()
	<-o.Done()
	lines := strings.SplitAfter(s.String(), "\n")
	n := 0
	for _, l := range lines {
		if l == "" {
			continue
		}
		if _, ok := sent.Load(l); !ok {
			t.Fatalf("line %q was not sent whole", l)
		}
		n++
	}
	count := 0
	sent.Range(func(any, any) bool { count++; return true })
	if n != count {
		t.Fatalf("%d lines written, %d frames accepted", n, count)
	}
}
