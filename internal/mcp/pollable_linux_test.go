package mcp

import (
	"errors"
	"io"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// isNonblocking reports whether fd's open file description is non-blocking.
func isNonblocking(t *testing.T, fd int) bool {
	t.Helper()
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fl&unix.O_NONBLOCK != 0
}

// fdOf is f's descriptor, read without f.Fd (which makes f blocking).
func fdOf(t *testing.T, f *os.File) int {
	t.Helper()
	sc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	fd := -1
	if err := sc.Control(func(d uintptr) { fd = int(d) }); err != nil {
		t.Fatal(err)
	}
	return fd
}

// readParksAndCloses checks f reads what was written to w and that
// closing f ends a read waiting on it: a read parked in the poller ends,
// where one blocked in a system call would wait for the writer.
func readParksAndCloses(t *testing.T, f *os.File, w int) {
	t.Helper()
	if _, err := unix.Write(w, []byte("frame\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := f.Read(buf); err != nil || string(buf[:n]) != "frame\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.Read(buf)
		done <- err
	}()
	f.Close()
	if err := <-done; err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("a read waiting on the closed file returned %v; want a closed-file error", err)
	}
}

// TestPollablePipeIsItsOwn: a blocking pipe is reopened on the same
// number as a non-blocking description of its own (another descriptor
// for the original description, as the client holds, stays blocking),
// and its reads go through the poller.
func TestPollablePipeIsItsOwn(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[1])
	shared, err := unix.Dup(p[0]) // the original description, as another holder has it
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(shared)
	f, undo := pollableFD(p[0], unix.O_RDONLY, "stdin")
	defer undo()
	if f == nil {
		unix.Close(p[0])
		t.Fatal("a blocking pipe was left as it is")
	}
	if fd := fdOf(t, f); fd != p[0] {
		t.Fatalf("reopened as fd %d, want %d", fd, p[0])
	}
	if !isNonblocking(t, p[0]) || isNonblocking(t, shared) {
		t.Fatalf("reopened non-blocking %v, shared non-blocking %v; want true, false", isNonblocking(t, p[0]), isNonblocking(t, shared))
	}
	readParksAndCloses(t, f, p[1])
}

// TestPollableSocketRestored: a blocking socket is made non-blocking, its
// reads go through the poller, and the returned function makes it
// blocking again.
func TestPollableSocketRestored(t *testing.T) {
	s, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(s[1])
	keep, err := unix.Dup(s[0]) // the description outlives f's close
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(keep)
	f, undo := pollableFD(s[0], unix.O_RDONLY, "stdin")
	if f == nil {
		unix.Close(s[0])
		t.Fatal("a blocking socket was left as it is")
	}
	if !isNonblocking(t, keep) {
		t.Fatal("the socket is still blocking")
	}
	readParksAndCloses(t, f, s[1])
	undo()
	if isNonblocking(t, keep) {
		t.Fatal("the socket was not made blocking again")
	}
}

// TestPollableLeavesOthers: a regular file and a descriptor that is
// non-blocking already are left as they are.
func TestPollableLeavesOthers(t *testing.T) {
	reg, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if f, _ := pollableFD(int(reg.Fd()), unix.O_RDONLY, "stdin"); f != nil {
		t.Fatal("a regular file was reopened")
	}
	r, w, err := os.Pipe() // Go's own pipes are non-blocking and polled
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if f, _ := pollableFD(fdOf(t, r), unix.O_RDONLY, "stdin"); f != nil {
		t.Fatal("a non-blocking pipe was reopened")
	}
}
