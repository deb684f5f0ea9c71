package kernel

import (
	"io"
	"net"
	"path/filepath"
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
	sock := filepath.Join(shortDir(t), "s.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	peer, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	nc, err := l.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var rw *rawio.RW
	if raw {
		rc, err := nc.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		rw = &rawio.RW{RC: rc, Sock: true}
	}
	w, ok := newSocketWriter(nc, rw).(proto.TryWriter)
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
