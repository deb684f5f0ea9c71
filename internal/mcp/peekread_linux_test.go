package mcp

import (
	"errors"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// rawPair is a raw kernel socket (dialRaw) and the peer it reached.
func rawPair(t *testing.T) (*rawConn, net.Conn) {
	t.Helper()
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
	rc, ok := nc.(*rawConn)
	if !ok {
		t.Fatalf("the kernel's socket %T is not served raw", nc)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("no connection accepted")
	}
	t.Cleanup(func() { rc.Close(); peer.Close() })
	return rc, peer
}

// TestRawSocketPeeksAnswers: an answer read stays on the socket (owed)
// until the reader next finds nothing and waits, and is read once.
func TestRawSocketPeeksAnswers(t *testing.T) {
	nc, peer := rawPair(t)
	if nc.pr == nil {
		t.Fatal("the kernel's socket does not peek")
	}
	if _, err := peer.Write([]byte("answer one\n")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 64)
	n, err := nc.Read(b)
	if err != nil || string(b[:n]) != "answer one\n" {
		t.Fatalf("read %q, %v", b[:n], err)
	}
	if owed := nc.pr.Owed(); owed != int64(n) {
		t.Fatalf("after the read %d bytes owed, want %d", owed, n)
	}
	// Nothing more: the read takes the answer off, then waits (here,
	// past its deadline).
	if err := nc.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	var ne net.Error
	if _, err := nc.Read(b); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("a read with nothing to read: %v, want a timeout", err)
	}
	if owed := nc.pr.Owed(); owed != 0 {
		t.Fatalf("after waiting %d bytes owed, want 0", owed)
	}
	if err := nc.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := peer.Write([]byte("answer two\n")); err != nil {
		t.Fatal(err)
	}
	n, err = nc.Read(b)
	if err != nil || string(b[:n]) != "answer two\n" {
		t.Fatalf("second read %q, %v", b[:n], err)
	}
	// The peer ends: the reader reaches the end of input.
	peer.Close()
	if n, err := nc.Read(b); err != io.EOF {
		t.Fatalf("after the peer closed: %q, %v; want EOF", b[:n], err)
	}
}

// TestRawSocketCloseReleases: closing the socket with an answer read and
// still owed takes it off first, so that the peer reads the end of input,
// not ECONNRESET.
func TestRawSocketCloseReleases(t *testing.T) {
	nc, peer := rawPair(t)
	if _, err := peer.Write([]byte("answer\n")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 64)
	if _, err := nc.Read(b); err != nil {
		t.Fatal(err)
	}
	if nc.pr.Owed() == 0 {
		t.Fatal("nothing owed after a read")
	}
	if err := nc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := peer.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if n, err := peer.Read(b); err != io.EOF {
		t.Fatalf("the peer read %q, %v; want EOF", b[:n], err)
	}
}

// TestRawSocketNoPeek: with peekAnswers off the socket reads as before.
func TestRawSocketNoPeek(t *testing.T) {
	peekAnswers = false
	defer func() { peekAnswers = true }()
	nc, peer := rawPair(t)
	if nc.pr != nil {
		t.Fatal("peeking with peekAnswers off")
	}
	if _, err := peer.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 8)
	if n, err := nc.Read(b); err != nil || string(b[:n]) != "x\n" {
		t.Fatalf("read %q, %v", b[:n], err)
	}
}
