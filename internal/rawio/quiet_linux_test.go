package rawio

import (
	"bytes"
	"io"
	"net"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// unixPair is an accepted Unix socket and its client, both served by the
// runtime's poller.
func unixPair(t *testing.T) (srv, cli *net.UnixConn) {
	t.Helper()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(t.TempDir(), "s"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cli, err = net.DialUnix("unix", nil, l.Addr().(*net.UnixAddr))
	if err != nil {
		t.Fatal(err)
	}
	srv, err = l.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(); cli.Close() })
	return srv, cli
}

// polled is c's registration in the runtime's poller.
func polled(t *testing.T, c *net.UnixConn) (events uint32, data uint64) {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	rc.Control(func(fd uintptr) {
		_, events, data, found = registration(int(fd))
	})
	if !found {
		t.Fatal("the socket's registration in the runtime's poller was not found")
	}
	return events, data
}

// backstop fails the test if done is not closed within a minute: a read
// or write that waits for an event the poller no longer watches for
// never returns.
func backstop(t *testing.T, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s never returned", what)
	}
}

// TestQuietWritesRegistration: Quiet takes room to write out of the
// socket's registration and keeps the rest (reading, the peer's hang-up,
// edge triggering, the runtime's data word); Wake puts it back for good.
func TestQuietWritesRegistration(t *testing.T) {
	srv, _ := unixPair(t)
	ev0, data0 := polled(t, srv)
	if ev0&unix.EPOLLOUT == 0 {
		t.Fatalf("the runtime registered the socket with events %#x, without EPOLLOUT (the test's premise)", ev0)
	}
	rc, _ := srv.SyscallConn()
	q := NewQuietWrites(rc)
	if !q.Quiet() || !q.Quieted() {
		t.Fatal("Quiet did not quiet the socket")
	}
	ev, data := polled(t, srv)
	if ev != ev0&^unix.EPOLLOUT || data != data0 {
		t.Fatalf("quieted: events %#x data %#x; want %#x and the same data %#x", ev, data, ev0&^unix.EPOLLOUT, data0)
	}
	if !q.Wake() || q.Quieted() {
		t.Fatal("Wake did not put room to write back")
	}
	if ev, data = polled(t, srv); ev != ev0 || data != data0 {
		t.Fatalf("woken: events %#x data %#x; want %#x %#x", ev, data, ev0, data0)
	}
	if q.Quiet() {
		t.Fatal("Quiet after Wake quieted the socket again")
	}
	if ev, _ = polled(t, srv); ev != ev0 {
		t.Fatalf("Quiet after Wake: events %#x, want %#x", ev, ev0)
	}
}

// TestQuietWritesReadsStillWait: a quieted socket's reads still wait in
// the poller and are woken by the peer's bytes and by its hang-up.
func TestQuietWritesReadsStillWait(t *testing.T) {
	srv, cli := unixPair(t)
	rc, _ := srv.SyscallConn()
	if !NewQuietWrites(rc).Quiet() {
		t.Fatal("Quiet did not quiet the socket")
	}
	rw := &RW{RC: rc, Sock: true}
	got := make(chan []byte)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 64)
		for {
			n, err := rw.Read(b)
			if err != nil {
				close(got)
				return
			}
			got <- append([]byte(nil), b[:n]...)
		}
	}()
	for _, msg := range []string{"one", "two"} {
		if _, err := cli.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		var b []byte
		select {
		case b = <-got:
		case <-time.After(time.Minute):
			t.Fatalf("the read of %q never returned", msg)
		}
		if string(b) != msg {
			t.Fatalf("read %q, want %q", b, msg)
		}
	}
	cli.Close()
	backstop(t, "the read at the peer's hang-up", done)
}

// TestQuietWritesWakeLetsWritesWait: a write that calls Wake first and
// then waits for room (the socket full) is woken as the peer reads; one
// that did not would wait for ever.
func TestQuietWritesWakeLetsWritesWait(t *testing.T) {
	srv, cli := unixPair(t)
	rc, _ := srv.SyscallConn()
	q := NewQuietWrites(rc)
	if !q.Quiet() {
		t.Fatal("Quiet did not quiet the socket")
	}
	rw := &RW{RC: rc, Sock: true}
	// Fill the socket: the next write has to wait for room.
	fill := make([]byte, 1<<20)
	total := 0
	for {
		n, err := rw.TryWrite(fill)
		if err != nil {
			t.Fatal(err)
		}
		total += n
		if n < len(fill) {
			break
		}
	}
	big := bytes.Repeat([]byte("q"), 8<<20)
	done := make(chan struct{})
	var werr error
	go func() {
		defer close(done)
		if !q.Wake() {
			werr = syscall.EIO
			return
		}
		_, werr = srv.Write(big)
		srv.CloseWrite()
	}()
	var n int64
	var err error
	read := make(chan struct{})
	go func() {
		defer close(read)
		n, err = io.Copy(io.Discard, cli)
	}()
	backstop(t, "the waiting write", done)
	<-read
	if err != nil || werr != nil || n != int64(total+len(big)) {
		t.Fatalf("read %d bytes (%v), the write %v; want %d", n, err, werr, total+len(big))
	}
}

// BenchmarkQuietWritesQuiet: what Quiet costs a connection (the
// registration found through /proc/self/fdinfo, then EPOLL_CTL_MOD), with
// the runtime's epoll descriptor already found; each iteration quiets the
// socket and puts room to write back.
func BenchmarkQuietWritesQuiet(b *testing.B) {
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(b.TempDir(), "s"), Net: "unix"})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	cli, err := net.DialUnix("unix", nil, l.Addr().(*net.UnixAddr))
	if err != nil {
		b.Fatal(err)
	}
	defer cli.Close()
	srv, err := l.AcceptUnix()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	rc, _ := srv.SyscallConn()
	for b.Loop() {
		q := NewQuietWrites(rc)
		if !q.Quiet() || !q.Wake() {
			b.Fatal("Quiet or Wake failed")
		}
	}
}
