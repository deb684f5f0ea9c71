package mcp

import (
	"io"
	"os"
	"syscall"
	"testing"
)

// nonblocking reports whether fd's open file description is non-blocking.
func nonblocking(t *testing.T, fd uintptr) bool {
	t.Helper()
	fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	return fl&syscall.O_NONBLOCK != 0
}

// TestPollableStdinIsItsOwn: the reopened pipe reads what the writer
// sends, is non-blocking while the original stays blocking (the client's
// description is not changed), and closing it ends a read waiting on it,
// which a read blocked in a system call would not do.
func TestPollableStdinIsItsOwn(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	// os.Pipe's ends are the poller's; a client's stdin is blocking.
	if err := syscall.SetNonblock(int(r.Fd()), false); err != nil {
		t.Fatal(err)
	}
	p := PollableStdin(r)
	if p == r {
		t.Fatal("a pipe was not reopened")
	}
	if !nonblocking(t, p.Fd()) || nonblocking(t, r.Fd()) {
		t.Fatalf("reopened non-blocking %v, original non-blocking %v; want true, false", nonblocking(t, p.Fd()), nonblocking(t, r.Fd()))
	}
	if _, err := w.Write([]byte("frame\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, err := p.Read(buf)
	if err != nil || string(buf[:n]) != "frame\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Read(buf)
		done <- err
	}()
	p.Close()
	if err := <-done; err == nil || err == io.EOF {
		t.Fatalf("a read waiting on the closed file returned %v; want a closed-file error", err)
	}
}

// TestPollableStdinLeavesOthers: a file that is not a pipe is returned as
// it is.
func TestPollableStdinLeavesOthers(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if PollableStdin(f) != f {
		t.Fatal("a regular file was reopened")
	}
}
