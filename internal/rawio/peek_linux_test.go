package rawio

import (
	"bytes"
	"errors"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// peekPair is an accepted Unix stream connection read through a
// PeekReader, and its peer.
func peekPair(t *testing.T) (r *PeekReader, nc *net.UnixConn, peer net.Conn) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	peer, err = net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	nc, err = l.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	rc, err := nc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	r, ok := NewPeekReader(&RW{RC: rc, Sock: true})
	if !ok {
		t.Skip("this kernel refuses SO_PEEK_OFF on a Unix stream socket")
	}
	return r, nc, peer
}

// queued is how many bytes wait on nc's socket, read or not.
func queued(t *testing.T, nc *net.UnixConn) int {
	t.Helper()
	rc, err := nc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	var ierr error
	if err := rc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.SIOCINQ) }); err != nil || ierr != nil {
		t.Fatal(err, ierr)
	}
	return n
}

// TestPeekReaderLeavesBytesUntilItWaits: the bytes a Read returns stay on
// the socket, owed, and each Read returns the bytes after them; a Read
// that finds nothing more takes them off before it waits, and then
// returns only what came next.
func TestPeekReaderLeavesBytesUntilItWaits(t *testing.T) {
	r, nc, peer := peekPair(t)
	if _, err := peer.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2)
	for _, want := range []string{"ab", "c"} {
		n, err := r.Read(buf)
		if err != nil || string(buf[:n]) != want {
			t.Fatalf("Read = %q, %v; want %q", buf[:n], err, want)
		}
	}
	if r.Owed() != 3 || queued(t, nc) != 3 {
		t.Fatalf("after reading 3 bytes: owed %d, on the socket %d; want 3, 3", r.Owed(), queued(t, nc))
	}
	got := make(chan string, 1)
	go func() {
		b := make([]byte, 16)
		n, err := r.Read(b)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(b[:n])
	}()
	// The read finds nothing past the owed bytes, takes them off and waits.
	for deadline := time.Now().Add(time.Minute); queued(t, nc) != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a read with nothing more to read left the bytes it had read on the socket")
		}
	}
	if _, err := peer.Write([]byte("def")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "def" {
		t.Fatalf("the read that waited returned %q, want %q", s, "def")
	}
	peer.Close()
	if n, err := r.Read(buf); !errors.Is(err, io.EOF) {
		t.Fatalf("Read after the peer closed = %q, %v; want io.EOF", buf[:n], err)
	}
}

// TestPeekReaderBoundsWhatItOwes: a peer that keeps writing (so reads
// never find the socket empty) gets its bytes taken off once PeekOwedMax
// are owed, and everything arrives once, in order. Were the bytes held
// until the reader waited, the peer's buffer would fill with bytes
// already read (owed up to the socket's whole buffer) and it would write
// in bursts, each waiting for the reader to run dry.
func TestPeekReaderBoundsWhatItOwes(t *testing.T) {
	r, _, peer := peekPair(t)
	want := make([]byte, 4<<20)
	for i := range want {
		want[i] = byte(i*7 + i>>11)
	}
	go func() {
		peer.Write(want)
		peer.Close()
	}()
	var got bytes.Buffer
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		got.Write(buf[:n])
		if o := r.Owed(); o > PeekOwedMax+int64(len(buf)) {
			t.Fatalf("owed %d bytes, above PeekOwedMax + one read (%d)", o, PeekOwedMax+len(buf))
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("read %d bytes, not the %d written in order", got.Len(), len(want))
	}
}

// TestPeekReaderRelease: Release takes the owed bytes off at once.
func TestPeekReaderRelease(t *testing.T) {
	r, nc, peer := peekPair(t)
	peer.Write([]byte("hello\nworld\n"))
	buf := make([]byte, 6)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "hello\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if err := r.Release(); err != nil {
		t.Fatal(err)
	}
	if r.Owed() != 0 || queued(t, nc) != 6 {
		t.Fatalf("after Release: owed %d, on the socket %d; want 0, 6", r.Owed(), queued(t, nc))
	}
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "world\n" {
		t.Fatalf("Read after Release = %q, %v; want %q", buf[:n], err, "world\n")
	}
}
