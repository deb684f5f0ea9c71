package mcp

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// polledPipe is a blocking pipe, as a client's stdin or stdout is,
// reopened as PollableStdio reopens it: the files served by the poller,
// and the pipe's own read and write descriptors.
func polledPipe(t *testing.T) (fr, fw *os.File, r, w int) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	fr, _ = pollableFD(p[0], unix.O_RDONLY, "stdin")
	fw, _ = pollableFD(p[1], unix.O_WRONLY, "stdout")
	if fr == nil || fw == nil {
		t.Fatal("a blocking pipe was left as it is")
	}
	return fr, fw, p[0], p[1]
}

// rawPipe is a pipe made as a client's stdin or stdout is, served as
// shoal-mcp serves it: PollableStdio's reopen, then RawStdio.
func rawPipe(t *testing.T) (r io.ReadCloser, w io.WriteCloser) {
	t.Helper()
	fr, fw, _, _ := polledPipe(t)
	r, w = RawStdio(fr, fw)
	if _, ok := r.(*rawFile); !ok {
		t.Fatalf("stdin %T is not served raw", r)
	}
	if _, ok := w.(*rawFile); !ok {
		t.Fatalf("stdout %T is not served raw", w)
	}
	return r, w
}

// TestRawPipeFullAndEOF: a write larger than the pipe holds waits in the
// poller for room and is written whole, in order; the reader then sees
// the end once the writer closes.
func TestRawPipeFullAndEOF(t *testing.T) {
	r, w := rawPipe(t)
	defer r.Close()
	want := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB, 16 pipe buffers
	done := make(chan error, 1)
	go func() {
		n, err := w.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(want))
	}
}

// TestRawReadParksAndCloses: a read with nothing to read waits in the
// poller (closing the file ends it), not in a system call.
func TestRawReadParksAndCloses(t *testing.T) {
	r, w := rawPipe(t)
	defer w.Close()
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 16))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the read start waiting (not a timed assertion)
	r.Close()
	if err := <-done; err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("a read waiting on the closed file returned %v; want a closed-file error", err)
	}
}

// TestRawPipeBrokenWrite: a write to a pipe whose reader is gone fails
// with EPIPE (on fd 1 os.File's Write then raises SIGPIPE, as Go does).
func TestRawPipeBrokenWrite(t *testing.T) {
	r, w := rawPipe(t)
	defer w.Close()
	r.Close()
	if _, err := w.Write([]byte("frame\n")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write to a pipe with no reader: %v, want EPIPE", err)
	}
}

// TestRawSocketSharedBlocking: a socket as stdin is read with
// MSG_DONTWAIT, so a read waits in the poller even when another holder
// of its description made it blocking again; closing the file ends it.
func TestRawSocketSharedBlocking(t *testing.T) {
	s, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(s[1])
	f, undo := pollableFD(s[0], unix.O_RDWR, "stdin")
	if f == nil {
		t.Fatal("a blocking socket was left as it is")
	}
	defer undo()
	in, _ := RawStdio(f, f)
	if _, ok := in.(*rawFile); !ok {
		t.Fatalf("stdin %T is not served raw", in)
	}
	if _, err := unix.Write(s[1], []byte("frame\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := in.Read(buf); err != nil || string(buf[:n]) != "frame\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if err := unix.SetNonblock(s[0], false); err != nil { // as the client might
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := in.Read(buf)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the read start waiting (not a timed assertion)
	in.Close()
	if err := <-done; err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("a read waiting on the closed socket returned %v; want a closed-file error", err)
	}
}

// TestRawStdioLeavesOthers: a regular file and a pipe left blocking are
// not served raw (a raw read would hold the thread).
func TestRawStdioLeavesOthers(t *testing.T) {
	reg, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	br, bw := os.NewFile(uintptr(p[0]), "stdin"), os.NewFile(uintptr(p[1]), "stdout")
	defer br.Close()
	defer bw.Close()
	for _, f := range []*os.File{reg, br, bw} {
		if rf := rawOf(f); rf != nil {
			t.Errorf("%s was served raw", f.Name())
		}
	}
}

// TestRawSocketConn: the kernel's socket served raw carries frames both
// ways, honours a read deadline and ends with the peer.
func TestRawSocketConn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	nc, err := dialRaw(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, ok := nc.(*rawConn); !ok {
		t.Fatalf("the kernel's socket %T is not served raw", nc)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("no connection accepted")
	}
	// Nothing sent yet: a read past its deadline fails as a timeout.
	if err := nc.SetReadDeadline(time.Now()); err != nil {
		t.Fatal(err)
	}
	var ne net.Error
	if _, err := nc.Read(make([]byte, 1)); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("a read past its deadline: %v, want a timeout", err)
	}
	if err := nc.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 4<<20) // more than the socket buffers hold
	go func() {
		b := make([]byte, len(big))
		_, _ = io.ReadFull(peer, b)
		_, _ = peer.Write(b)
		peer.Close()
	}()
	if n, err := nc.Write(big); err != nil || n != len(big) {
		t.Fatalf("wrote %d bytes (%v), want %d", n, err, len(big))
	}
	got, err := io.ReadAll(nc)
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("read %d bytes back (%v), want %d", len(got), err, len(big))
	}
}
