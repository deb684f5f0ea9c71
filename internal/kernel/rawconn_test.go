package kernel

import (
	"errors"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/rawio"
	"github.com/shoalgo/shoal/proto"
)

// socketPair is an accepted Unix connection, as the kernel holds one, and
// its peer.
func socketPair(t *testing.T) (nc *net.UnixConn, peer net.Conn) {
	t.Helper()
	sock := filepath.Join(shortDir(t), "s.sock")
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
	return nc, peer
}

// readGuards are the connection's reader through net.Conn and through raw
// system calls (rawconn.go), whichever the build uses, so both are held
// to the same behaviour.
func readGuards(t *testing.T, nc *net.UnixConn) map[string]*readGuard {
	gs := map[string]*readGuard{"net": {nc: nc}}
	if rawio.Supported {
		rc, err := nc.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		raw := &rawio.RW{RC: rc, Sock: true}
		gs["raw"] = &readGuard{nc: nc, raw: raw}
		if pr, ok := rawio.NewPeekReader(raw); ok {
			gs["peek"] = &readGuard{nc: nc, raw: raw, peek: pr}
		}
	}
	return gs
}

// TestReadGuardFrames: frames split across writes and pipelined in one
// write are read whole, in order, with the reader parked between; a frame
// begun and not finished within the frame timeout fails with
// ErrFrameTimeout; the peer's close ends reading with io.EOF.
func TestReadGuardFrames(t *testing.T) {
	for _, name := range []string{"net", "raw", "peek"} {
		t.Run(name, func(t *testing.T) {
			nc, peer := socketPair(t)
			g, ok := readGuards(t, nc)[name]
			if !ok {
				t.Skip("no raw I/O (or no peeking) here")
			}
			fr := proto.NewReader(g, proto.MaxFrame)
			fr.SetFrameTimeout(g, time.Hour)
			go func() {
				peer.Write([]byte(`{"a":`))
				time.Sleep(10 * time.Millisecond) // the reader parks with half a frame
				peer.Write([]byte("1}\n{\"b\":2}\n{\"c\":3}\n"))
			}()
			for _, want := range []string{`{"a":1}`, `{"b":2}`, `{"c":3}`} {
				f, err := fr.ReadFrame()
				if err != nil || string(f) != want {
					t.Fatalf("ReadFrame = %q, %v; want %q", f, err, want)
				}
			}
			peer.Close()
			if f, err := fr.ReadFrame(); err == nil {
				t.Fatalf("ReadFrame after the peer closed = %q, want an error", f)
			}
		})
	}
	for _, name := range []string{"net", "raw", "peek"} {
		t.Run(name+"/timeout", func(t *testing.T) {
			nc, peer := socketPair(t)
			g, ok := readGuards(t, nc)[name]
			if !ok {
				t.Skip("no raw I/O (or no peeking) here")
			}
			fr := proto.NewReader(g, proto.MaxFrame)
			fr.SetFrameTimeout(g, 20*time.Millisecond)
			peer.Write([]byte(`{"partial":`))
			if f, err := fr.ReadFrame(); !errors.Is(err, proto.ErrFrameTimeout) {
				t.Fatalf("ReadFrame of a frame never finished = %q, %v; want ErrFrameTimeout", f, err)
			}
		})
	}
}

// TestReadGuardStopAndClose: a read parked with nothing to read is ended
// by stop (as a timeout, and every later read too) and by the
// connection's close (net.ErrClosed).
func TestReadGuardStopAndClose(t *testing.T) {
	for _, name := range []string{"net", "raw", "peek"} {
		t.Run(name, func(t *testing.T) {
			nc, _ := socketPair(t)
			g, ok := readGuards(t, nc)[name]
			if !ok {
				t.Skip("no raw I/O (or no peeking) here")
			}
			done := make(chan error, 1)
			go func() {
				_, err := g.Read(make([]byte, 64))
				done <- err
			}()
			time.Sleep(10 * time.Millisecond) // let it park
			g.stop()
			var ne net.Error
			if err := <-done; !errors.As(err, &ne) || !ne.Timeout() {
				t.Fatalf("a read stopped: %v, want a timeout", err)
			}
			if err := g.SetReadDeadline(time.Time{}); err != nil {
				t.Fatal(err)
			}
			if _, err := g.Read(make([]byte, 64)); !errors.As(err, &ne) || !ne.Timeout() {
				t.Fatalf("a read after stop: %v, want a timeout", err)
			}

			nc2, _ := socketPair(t)
			g2 := readGuards(t, nc2)[name]
			go func() {
				_, err := g2.Read(make([]byte, 64))
				done <- err
			}()
			time.Sleep(10 * time.Millisecond)
			nc2.Close()
			if err := <-done; !errors.Is(err, net.ErrClosed) {
				t.Fatalf("a read when the connection closed: %v, want net.ErrClosed", err)
			}
		})
	}
}

// TestPeekedBytesReleasedBeforeClose: a peer that shuts down its writing
// after a request reads the kernel's last frame and then the end of
// input, not ECONNRESET, when the connection closes with the request's
// bytes read by peeking (serve takes them off before it closes).
func TestPeekedBytesReleasedBeforeClose(t *testing.T) {
	nc, peer := socketPair(t)
	g, ok := readGuards(t, nc)["peek"]
	if !ok {
		t.Skip("no peeking here")
	}
	fr := proto.NewReader(g, proto.MaxFrame)
	// Two frames, so the reader's last read before the end returns bytes
	// and the end comes in a read of its own.
	if _, err := peer.Write([]byte("{\"a\":1}\n")); err != nil {
		t.Fatal(err)
	}
	if f, err := fr.ReadFrame(); err != nil || string(f) != `{"a":1}` {
		t.Fatalf("ReadFrame = %q, %v", f, err)
	}
	if _, err := peer.Write([]byte("{\"b\":2}\n")); err != nil {
		t.Fatal(err)
	}
	if f, err := fr.ReadFrame(); err != nil || string(f) != `{"b":2}` {
		t.Fatalf("ReadFrame = %q, %v", f, err)
	}
	// The kernel stops reading here (as when it shuts down) with the
	// second frame's bytes owed.
	if g.peek.Owed() == 0 {
		t.Fatal("nothing owed after a read that found bytes")
	}
	g.releasePeeked()
	if _, err := nc.Write([]byte("{\"last\":true}\n")); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	got, err := io.ReadAll(peer)
	if err != nil || string(got) != "{\"last\":true}\n" {
		t.Fatalf("the peer read %q, %v; want the last frame and the end of input", got, err)
	}
}
