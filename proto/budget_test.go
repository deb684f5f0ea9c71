package proto

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// testCharge is a Charge with a limit that records its peak.
type testCharge struct {
	mu          sync.Mutex
	limit, used int64
	peak        int64
}

var errCharge = errors.New("test budget full")

func (c *testCharge) Grow(n int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.used+n > c.limit {
		return errCharge
	}
	c.used += n
	c.peak = max(c.peak, c.used)
	return nil
}

func (c *testCharge) Shrink(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.used -= n
	if c.used < 0 {
		panic("charge went negative")
	}
}

func (c *testCharge) state() (used, peak int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, c.peak
}

func TestReaderChargesGrowthAndGivesItBack(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	c := &testCharge{limit: 4 << 20}
	r := NewReader(strings.NewReader("small\n"+big+"\nafter\n"), 2<<20)
	r.SetCharge(c)
	for _, want := range []string{"small", big, "after"} {
		f, err := r.ReadFrame()
		if err != nil || string(f) != want {
			t.Fatalf("frame %.10q…, %v; want %.10q…", f, err, want)
		}
		if used, _ := c.state(); want == "small" && used != 0 {
			t.Fatalf("a frame within ReadBufferSize charged %d bytes", used)
		}
	}
	if _, err := r.ReadFrame(); !errors.Is(err, io.EOF) {
		t.Fatalf("end: %v", err)
	}
	used, peak := c.state()
	if peak < 1<<20-ReadBufferSize || peak > int64(chargeable(2<<20+1)) {
		t.Errorf("peak charge %d for a 1 MiB frame", peak)
	}
	if used != 0 {
		t.Errorf("%d bytes still charged after the large frame was consumed", used)
	}
}

func TestReaderChargeRefusedIsSticky(t *testing.T) {
	c := &testCharge{limit: 100 << 10}
	r := NewReader(strings.NewReader("ok\n"+strings.Repeat("y", 1<<20)+"\nlater\n"), 0)
	r.SetCharge(c)
	if f, err := r.ReadFrame(); err != nil || string(f) != "ok" {
		t.Fatalf("first frame %q, %v", f, err)
	}
	for i := range 2 {
		if _, err := r.ReadFrame(); !errors.Is(err, errCharge) {
			t.Fatalf("call %d: err = %v, want the charge's error", i, err)
		}
	}
	if r.Buffered() > ReadBufferSize+100<<10 {
		t.Errorf("buffer %d bytes past a refused charge", r.Buffered())
	}
	r.Release()
	if used, _ := c.state(); used != 0 {
		t.Errorf("%d bytes charged after Release", used)
	}
}

// TestReaderChargeConcurrent shares one charge among many readers of
// large frames; the charge never goes past its limit (testCharge refuses)
// nor negative (it panics), and ends at zero.
func TestReaderChargeConcurrent(t *testing.T) {
	c := &testCharge{limit: 3 << 20}
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var in bytes.Buffer
			for j := range 6 {
				in.WriteString(strings.Repeat("z", (i*j*37%5+1)*200<<10))
				in.WriteByte('\n')
			}
			r := NewReader(&in, 0)
			r.SetCharge(c)
			defer r.Release()
			for {
				if _, err := r.ReadFrame(); err != nil {
					if !errors.Is(err, io.EOF) && !errors.Is(err, errCharge) {
						t.Error(err)
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	if used, peak := c.state(); used != 0 || peak > c.limit {
		t.Fatalf("used %d, peak %d, limit %d", used, peak, c.limit)
	}
}

func pipe(t *testing.T) (client, server net.Conn) {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

func TestFrameTimeout(t *testing.T) {
	const d = 150 * time.Millisecond
	t.Run("idle between frames has no deadline", func(t *testing.T) {
		cl, sv := pipe(t)
		r := NewReader(sv, 0)
		r.SetFrameTimeout(sv, d)
		go func() {
			cl.Write([]byte("one\n"))
			time.Sleep(3 * d)
			cl.Write([]byte("two\n"))
		}()
		for _, want := range []string{"one", "two"} {
			if f, err := r.ReadFrame(); err != nil || string(f) != want {
				t.Fatalf("got %q, %v; want %q", f, err, want)
			}
		}
	})
	t.Run("a trickled frame times out", func(t *testing.T) {
		cl, sv := pipe(t)
		r := NewReader(sv, 0)
		r.SetFrameTimeout(sv, d)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			cl.Write([]byte("ok\n"))
			for {
				select {
				case <-stop:
					return
				case <-time.After(d / 5):
				}
				cl.SetWriteDeadline(time.Now().Add(d))
				if _, err := cl.Write([]byte("x")); err != nil {
					return
				}
			}
		}()
		if f, err := r.ReadFrame(); err != nil || string(f) != "ok" {
			t.Fatalf("got %q, %v", f, err)
		}
		start := time.Now()
		_, err := r.ReadFrame()
		if !errors.Is(err, ErrFrameTimeout) {
			t.Fatalf("err = %v, want ErrFrameTimeout", err)
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("err %v does not wrap the read timeout", err)
		}
		if el := time.Since(start); el > 20*d {
			t.Errorf("timed out after %v; the deadline was extended by trickled bytes", el)
		}
	})
	t.Run("each frame gets its own deadline", func(t *testing.T) {
		// A longer deadline than d: each frame's gap must stay under it on
		// a loaded machine, where a 75 ms sleep can take twice that.
		const d = 2 * time.Second // the frames take 3 s together
		cl, sv := pipe(t)
		r := NewReader(sv, 0)
		r.SetFrameTimeout(sv, d)
		go func() {
			// Each frame completes within d, though together they take
			// longer; the second begins in the same write as the first ends.
			cl.Write([]byte("a"))
			time.Sleep(d / 2)
			cl.Write([]byte("a\nb"))
			time.Sleep(d / 2)
			cl.Write([]byte("b\nc"))
			time.Sleep(d / 2)
			cl.Write([]byte("c\n"))
		}()
		for _, want := range []string{"aa", "bb", "cc"} {
			if f, err := r.ReadFrame(); err != nil || string(f) != want {
				t.Fatalf("got %q, %v; want %q", f, err, want)
			}
		}
	})
}

func TestOutboxCharge(t *testing.T) {
	c := &testCharge{limit: 10}
	g := &gate{release: make(chan struct{})}
	o := NewOutbox(g, 8, OutboxCharge(c))
	if err := o.Send([]byte("abcd\n")); err != nil {
		t.Fatal(err)
	}
	if err := o.Send([]byte("efgh\n")); err != nil {
		t.Fatal(err)
	}
	err := o.Send([]byte("ij\n"))
	if !errors.Is(err, ErrOutboxFull) || !errors.Is(err, errCharge) {
		t.Fatalf("send past the charge: %v", err)
	}
	if used, _ := c.state(); used != 10 || o.Queued() != 10 {
		t.Fatalf("charged %d, queued %d", used, o.Queued())
	}
	close(g.release)
	deadline := time.Now().Add(5 * time.Second)
	for o.Written() < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if used, _ := c.state(); used != 0 || o.Written() != 2 {
		t.Fatalf("after the writes: charged %d, written %d", used, o.Written())
	}
	if err := o.Send([]byte("ij\n")); err != nil {
		t.Fatalf("send after room freed: %v", err)
	}
	o.Close()
	<-o.Done()
	if err := o.Send([]byte("k\n")); !errors.Is(err, ErrOutboxClosed) {
		t.Fatalf("send after close: %v", err)
	}
	if used, _ := c.state(); used != 0 {
		t.Fatalf("a refused send kept its charge: %d", used)
	}
}
