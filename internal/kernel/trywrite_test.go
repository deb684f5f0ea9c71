package kernel

import (
	"io"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/rawio"
	"github.com/shoalgo/shoal/proto"
)

// TestSocketWriterNeverWaits writes far more than a socket buffers to a
// peer that is not reading: TryWrite returns at once with part of it, then
// nothing, and takes more once the peer has read; through syscall.Write
// and through a raw system call (rawconn.go) alike.
func TestSocketWriterNeverWaits(t *testing.T) {
	t.Run("syscall", func(t *testing.T) { testSocketWriterNeverWaits(t, false) })
	if rawio.Supported {
		t.Run("raw", func(t *testing.T) { testSocketWriterNeverWaits(t, true) })
	}
}

func testSocketWriterNeverWaits(t *testing.T, raw bool) {
	nc, peer := socketPair(t)
	var rw *rawio.RW
	if raw {
		rc, err := nc.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		rw = &rawio.RW{RC: rc, Sock: true}
	}
	w, ok := newSocketWriter(nc, rw, nil).(proto.TryWriter)
	if !ok {
		t.Fatal("a Unix connection's writer cannot write without waiting")
	}
	big := make([]byte, 64<<20)
	start := time.Now()
	n, err := w.TryWrite(big)
	if err != nil || n <= 0 || n >= len(big) {
		t.Fatalf("first TryWrite = %d, %v: want part of %d bytes", n, err, len(big))
	}
	if m, err := w.TryWrite(big[n:]); err != nil || m != 0 {
		t.Fatalf("TryWrite to a full socket = %d, %v; want 0, nil", m, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("TryWrite took %v on a peer that does not read", d)
	}
	if _, err := io.ReadFull(peer, make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	if m, err := w.TryWrite(big[n:]); err != nil || m <= 0 {
		t.Fatalf("TryWrite after the peer read = %d, %v; want more taken", m, err)
	}
	peer.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := w.TryWrite(big[:1]); err != nil {
			break // the peer is gone: an error, not a wait
		}
		if time.Now().After(deadline) {
			t.Fatal("TryWrite to a closed peer never failed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSocketWriterWakesBeforeWaiting: with the socket's registration
// quieted (no room to write, quietwrites.go), the outbox's waiting Write
// still finishes once the peer reads: it has the poller watch for room
// first. Without that it would wait for ever (here: a minute).
func TestSocketWriterWakesBeforeWaiting(t *testing.T) {
	if !rawio.Supported {
		t.Skip("the poller's registration is quieted on Linux only")
	}
	nc, peer := socketPair(t)
	q := quietWrites(nc)
	if q == nil || !q.Quiet() {
		t.Fatal("the socket's registration was not quieted")
	}
	w := newSocketWriter(nc, rawSocket(nc), q)
	tw := w.(proto.TryWriter)
	fill := make([]byte, 1<<20)
	total := 0
	for {
		n, err := tw.TryWrite(fill)
		if err != nil {
			t.Fatal(err)
		}
		total += n
		if n < len(fill) {
			break // full: the next Write waits for room
		}
	}
	big := make([]byte, 8<<20)
	wrote := make(chan error, 1)
	go func() {
		_, err := w.Write(big)
		nc.CloseWrite()
		wrote <- err
	}()
	read := make(chan int64, 1)
	go func() {
		n, _ := io.Copy(io.Discard, peer)
		read <- n
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatalf("Write: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the outbox's Write to a quieted socket never returned")
	}
	if n := <-read; n != int64(total+len(big)) {
		t.Fatalf("the peer read %d bytes, want %d", n, total+len(big))
	}
}

// TestServedConnectionQuieted: a connection being served is registered in
// the poller without room to write from its quietAfter-th request
// (quietwrites.go), and as the runtime made it before.
func TestServedConnectionQuieted(t *testing.T) {
	if !rawio.Supported || !quietSockets {
		t.Skip("the poller's registration is quieted on Linux only")
	}
	k := startKernel(t)
	c := k.dial(t)
	quieted := func() bool {
		k.srv.mu.Lock()
		defer k.srv.mu.Unlock()
		if len(k.srv.conns) != 1 {
			t.Fatalf("%d connections served, want 1", len(k.srv.conns))
		}
		for cn := range k.srv.conns {
			return cn.quiet != nil && cn.quiet.Quieted()
		}
		return false
	}
	for i := 1; i <= quietAfter; i++ {
		c.call("exec", map[string]any{"src": "1 + 1"}) // answered: dispatched
		if q := quieted(); q != (i >= quietAfter) {
			t.Fatalf("after request %d the registration is quieted: %v", i, q)
		}
	}
}
