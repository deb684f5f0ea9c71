package proto

import (
	"errors"
	"testing"
)

// nullTryWriter takes every frame at once and keeps nothing.
type nullTryWriter struct{ fail error }

func (w nullTryWriter) TryWrite(p []byte) (int, error) {
	if w.fail != nil {
		return 0, w.fail
	}
	return len(p), nil
}
func (w nullTryWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestOutboxDirectSendDoesNotAllocate: a frame written on the caller's
// goroutine (an answer to a waiting client) costs the outbox no
// allocation; its error variable used to be moved to the heap on every
// send. A failed write is still recorded and refuses what follows.
func TestOutboxDirectSendDoesNotAllocate(t *testing.T) {
	o := NewOutbox(nullTryWriter{}, 4)
	frame := []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":2}\n")
	release := func([]byte) {}
	if a := testing.AllocsPerRun(100, func() {
		if err := o.SendOwned(frame, release); err != nil {
			t.Fatal(err)
		}
	}); a > 0 {
		t.Errorf("a direct send allocated %.1f times; want 0", a)
	}
	o.Close()
	<-o.Done()

	boom := errors.New("boom")
	o = NewOutbox(nullTryWriter{fail: boom}, 4)
	_ = o.SendOwned(frame, release)
	if err := o.Err(); !errors.Is(err, boom) {
		t.Fatalf("Err() = %v after a failed write; want it to wrap %v", err, boom)
	}
	if err := o.SendOwned(frame, release); err == nil {
		t.Error("a send after a failed write succeeded")
	}
	o.Close()
	<-o.Done()
}
