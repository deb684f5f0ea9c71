package mcp

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOneProcessor: shoal-mcp runs on one processor only over stdio,
// with both ends pipes or sockets served by the poller, and no
// GOMAXPROCS of the operator's.
func TestOneProcessor(t *testing.T) {
	polledFDs := func() (r, w int) {
		fr, fw, r, w := polledPipe(t)
		t.Cleanup(func() { fr.Close(); fw.Close() })
		return r, w
	}
	in, out := polledFDs()

	s, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	sock, undo := pollableFD(s[0], unix.O_RDWR, "stdin")
	if sock == nil {
		t.Fatal("a blocking socket was left as it is")
	}
	t.Cleanup(func() { sock.Close(); undo(); unix.Close(s[1]) })

	var bp [2]int // a pipe left blocking, as a client's stdin before PollableStdio
	if err := unix.Pipe2(bp[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(bp[0]); unix.Close(bp[1]) })

	reg, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	regFD := int(reg.Fd())
	if err := unix.SetNonblock(regFD, true); err != nil { // O_NONBLOCK means nothing to a file
		t.Fatal(err)
	}

	for _, c := range []struct {
		name       string
		args       []string
		gomaxprocs string
		in, out    int
		want       bool
	}{
		{"polled pipes", nil, "", in, out, true},
		{"polled socket both ways", []string{"--session", "s"}, "", s[0], s[0], true},
		{"socket in, pipe out", nil, "", s[0], out, true},
		{"GOMAXPROCS set", nil, "2", in, out, false},
		{"--http", []string{"--http", "127.0.0.1:0"}, "", in, out, false},
		{"--version", []string{"--version"}, "", in, out, false},
		{"bad flag", []string{"--no-such-flag"}, "", in, out, false},
		{"argument", []string{"extra"}, "", in, out, false},
		{"blocking pipe in", nil, "", bp[0], out, false},
		{"blocking pipe out", nil, "", in, bp[1], false},
		{"file in", nil, "", regFD, out, false},
		{"closed fd", nil, "", 1 << 20, out, false},
	} {
		if got := oneProcessor(c.args, c.gomaxprocs, c.in, c.out); got != c.want {
			t.Errorf("%s: oneProcessor = %v, want %v", c.name, got, c.want)
		}
	}
}
