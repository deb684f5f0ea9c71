package proto

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"
)

// gate blocks every Write until released.
type gate struct {
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
}

func (g *gate) Write(p []byte) (int, error) {
	<-g.release
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

func TestOutboxOrderAndFlushOnClose(t *testing.T) {
	var buf bytes.Buffer
	o := NewOutbox(&buf, 8)
	var want bytes.Buffer
	for i := 0; i < 8; i++ {
		f := []byte(strconv.Itoa(i) + "\n")
		want.Write(f)
		if err := o.Send(f); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	o.Close()
	<-o.Done()
	if buf.String() != want.String() {
		t.Fatalf("wrote %q, want %q", buf.String(), want.String())
	}
	if err := o.Send([]byte("x\n")); !errors.Is(err, ErrOutboxClosed) {
		t.Fatalf("send after close = %v, want ErrOutboxClosed", err)
	}
	o.Close() // idempotent
}

func TestOutboxFullNeverBlocks(t *testing.T) {
	g := &gate{release: make(chan struct{})}
	o := NewOutbox(g, 2)
	sent, full := 0, 0
	start := time.Now()
	for i := 0; i < 100; i++ {
		switch err := o.Send([]byte("{}\n")); {
		case err == nil:
			sent++
		case errors.Is(err, ErrOutboxFull):
			full++
		default:
			t.Fatal(err)
		}
	}
	if time.Since(start) > time.Second {
		t.Fatal("Send blocked on a stalled peer")
	}
	// The writer may hold one frame in flight plus two queued.
	if sent < 2 || sent > 3 || full != 100-sent {
		t.Fatalf("sent %d, full %d", sent, full)
	}
	close(g.release)
	o.Close()
	<-o.Done()
	if got := bytes.Count(g.buf.Bytes(), []byte("\n")); got != sent {
		t.Fatalf("wrote %d frames, want %d", got, sent)
	}
}

func TestOutboxByteBound(t *testing.T) {
	g := &gate{release: make(chan struct{})}
	o := NewOutbox(g, 1000)
	big := append(bytes.Repeat([]byte("x"), MaxFrame-1), '\n')
	n := 0
	for i := 0; i < 10; i++ {
		if err := o.Send(big); err == nil {
			n++
		} else if !errors.Is(err, ErrOutboxFull) {
			t.Fatal(err)
		}
	}
	// One in flight at most, plus what fits in MaxOutboxBytes.
	if limit := MaxOutboxBytes / MaxFrame; n < limit || n > limit+1 {
		t.Fatalf("accepted %d half-bound frames", n)
	}
	close(g.release)
	o.Close()
	<-o.Done()
}

type failWriter struct{}

var errPeerGone = errors.New("peer gone")

func (failWriter) Write([]byte) (int, error) { return 0, errPeerGone }

func TestOutboxBroken(t *testing.T) {
	o := NewOutbox(failWriter{}, 4)
	if err := o.Send([]byte("1\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for o.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	err := o.Send([]byte("2\n"))
	if !errors.Is(err, ErrOutboxBroken) || !errors.Is(err, errPeerGone) {
		t.Fatalf("send after failure = %v", err)
	}
	o.Close()
	<-o.Done()
}

func TestOutboxRejectsBadFrame(t *testing.T) {
	o := NewOutbox(io.Discard, 0)
	defer o.Close()
	if err := o.Send([]byte("a\nb\n")); !errors.Is(err, ErrBadFrame) {
		t.Fatalf("err = %v, want ErrBadFrame", err)
	}
	if o.capacity != DefaultOutboxCapacity {
		t.Fatalf("capacity = %d", o.capacity)
	}
}

func TestOutboxConcurrentSendClose(t *testing.T) {
	o := NewOutbox(io.Discard, 16)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				err := o.Send([]byte("{}\n"))
				if err != nil && !errors.Is(err, ErrOutboxFull) && !errors.Is(err, ErrOutboxClosed) {
					t.Error(err)
					return
				}
			}
		}()
	}
	time.Sleep(time.Millisecond)
	o.Close()
	wg.Wait()
	<-o.Done()
	if o.queued.Load() != 0 {
		t.Fatalf("queued bytes = %d after drain", o.queued.Load())
	}
}

// TestOutboxSendOwnedReleases checks that a frame sent with SendOwned is
// handed back once written, after the frames before it, and that a refused
// frame is not.
func TestOutboxSendOwnedReleases(t *testing.T) {
	var buf bytes.Buffer
	o := NewOutbox(&buf, 2)
	released := make(chan string, 4)
	release := func(f []byte) { released <- string(f) }
	if err := o.Send([]byte("a\n")); err != nil {
		t.Fatal(err)
	}
	if err := o.SendOwned([]byte("b\n"), release); err != nil {
		t.Fatal(err)
	}
	if err := o.SendOwned([]byte("bad"), release); !errors.Is(err, ErrBadFrame) {
		t.Fatalf("malformed frame: %v", err)
	}
	o.Close()
	<-o.Done()
	if buf.String() != "a\nb\n" {
		t.Errorf("wrote %q", buf.String())
	}
	close(released)
	var got []string
	for f := range released {
		got = append(got, f)
	}
	if len(got) != 1 || got[0] != "b\n" {
		t.Errorf("released %q, want only the owned frame", got)
	}
}

// TestOutboxBacklogDrainsInOrder checks a deep queue: 5,000 frames queued
// behind a stalled peer are accepted up to the capacity only, each
// charged its bytes plus the frame cost, and once the peer reads they are
// written whole and in order, every charge given back.
func TestOutboxBacklogDrainsInOrder(t *testing.T) {
	g := &gate{release: make(chan struct{})}
	charge := &testCharge{limit: 1 << 30}
	const capacity, cost = 4000, 64
	o := NewOutbox(g, capacity, OutboxCharge(charge), OutboxFrameCost(cost))
	var want bytes.Buffer
	sent, full := 0, 0
	var size int64
	for i := 0; i < 5000; i++ {
		f := []byte(`{"n":` + strconv.Itoa(i) + "}\n")
		switch err := o.Send(f); {
		case err == nil:
			sent++
			size += int64(len(f)) + cost
			want.Write(f)
		case errors.Is(err, ErrOutboxFull):
			full++
		default:
			t.Fatal(err)
		}
	}
	if sent != capacity || o.Len() != capacity {
		t.Fatalf("accepted %d (queue %d), want the capacity %d", sent, o.Len(), capacity)
	}
	if used, _ := charge.state(); used != size || o.Queued() != size {
		t.Fatalf("charged %d, queued %d; want %d (bytes plus %d a frame)", used, o.Queued(), size, cost)
	}
	close(g.release)
	o.Close()
	<-o.Done()
	if g.buf.String() != want.String() {
		t.Fatal("the backlog was not written whole and in order")
	}
	if used, _ := charge.state(); used != 0 || o.Queued() != 0 || o.Len() != 0 || o.Written() != uint64(sent) {
		t.Fatalf("after the drain: charged %d, queued %d, len %d, written %d", used, o.Queued(), o.Len(), o.Written())
	}
}
