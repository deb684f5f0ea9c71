package rawio

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestRawCallsDoNotAllocate: a request's read (PeekReader.Read, RW.Read),
// its answer's write (RW.Write, RW.TryWrite) and the intent log's write
// (WriteFile) allocate nothing of their own once warm: their poller
// callbacks and results live in reused ops, not in a closure each call.
// The bytes still arrive whole and in order.
func TestRawCallsDoNotAllocate(t *testing.T) {
	if Race {
		t.Skip("the race detector allocates")
	}
	r, nc, peer := peekPair(t)
	rc, err := nc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	w := &RW{RC: rc, Sock: true}
	msg := []byte("a request of some bytes\n")
	buf := make([]byte, 64)
	var got bytes.Buffer
	peerBuf := make([]byte, 64)
	step := func() {
		if _, err := peer.Write(msg); err != nil {
			t.Fatal(err)
		}
		n, err := r.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got.Write(buf[:n])
		if _, err := w.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := w.TryWrite(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(peer, peerBuf[:2*len(msg)]); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(peerBuf[:len(msg)], msg) || !bytes.Equal(peerBuf[len(msg):2*len(msg)], msg) {
			t.Fatalf("peer read %q", peerBuf[:2*len(msg)])
		}
	}
	step()
	got.Reset()
	got.Grow(200 * len(msg))
	if a := testing.AllocsPerRun(100, step); a > 0 {
		t.Errorf("read and writes allocated %.1f times a round; want 0", a)
	}
	if want := bytes.Repeat(msg, 101); !bytes.Equal(got.Bytes(), want) {
		t.Errorf("read %d bytes, want %d in order", got.Len(), len(want))
	}

	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if a := testing.AllocsPerRun(100, func() {
		if n, err := WriteFile(f, msg); err != nil || n != len(msg) {
			t.Fatal(n, err)
		}
	}); a > 1 {
		t.Errorf("WriteFile allocated %.1f times; want at most 1 (the file's RawConn)", a)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.Repeat(msg, 101); !bytes.Equal(b, want) {
		t.Errorf("file holds %d bytes, want %d", len(b), len(want))
	}
}
