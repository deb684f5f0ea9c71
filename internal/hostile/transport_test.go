//go:build linux

package hostile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// Attacks on the transport and the event bus (issue 8, slice h5): frames
// held half-sent, connection floods, clients that never read, events
// over many channels, and the since cursor.

// closingError reads the frames of c until an error with a null id (the
// kernel's last word before it closes) and returns its code and budget;
// ok is false when the connection ended without one.
func closingError(c net.Conn, within time.Duration) (code int, budget string, ok bool) {
	c.SetReadDeadline(time.Now().Add(within))
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return 0, "", false
		}
		var f struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
				Data struct {
					Budget string `json:"budget"`
				} `json:"data"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &f) == nil && f.Error != nil && string(f.ID) == "null" {
			return f.Error.Code, f.Error.Data.Budget, true
		}
	}
}

// openFDs counts the kernel process's open file descriptors.
func openFDs(t *testing.T, k *Kernel) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", k.Pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestHostilePartialFrames: 100 connections each send 16 MiB of a line
// without its newline, 10x a 160 MiB --frame-memory budget. Each is
// answered -32600 naming frame-memory (refused or evicted) or
// frame-timeout (it held its share until the frame deadline), and closed;
// the owner is served throughout and the kernel's RSS stays bounded.
func TestHostilePartialFrames(t *testing.T) {
	const conns = 100
	const rssBound = 1 << 30
	// The default 4 GiB address-space cap: the Go runtime reserves about
	// 1 GiB of address space beside its heap, which stays near 400 MB.
	k := Start(t, Options{Flags: []string{"--frame-memory", "160MiB", "--frame-timeout", "3s"}})
	hb := k.Heartbeat(t)
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"parse","params":{"src":"` + strings.Repeat("x", proto.MaxFrame-64))
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("unix", k.Sock)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			go func() {
				c.SetWriteDeadline(time.Now().Add(30 * time.Second))
				c.Write(line) // cut short when the kernel closes us
			}()
			code, budget, ok := closingError(c, 30*time.Second)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case !ok:
				outcomes["closed without an error"]++
			case code != proto.CodeInvalidRequest:
				outcomes[fmt.Sprintf("code %d", code)]++
			default:
				outcomes[budget]++
			}
		}()
	}
	wg.Wait()
	lat := hb.Stop(t)
	k.Alive(t)
	rss := k.PeakRSS(t)
	t.Logf("outcomes %v; owner p99 %v; peak RSS %d MiB, peak VM %d MiB", outcomes, Percentile(lat, 99), rss>>20, statusField(t, k.Pid, "VmPeak")>>20)
	if outcomes["frame_memory"]+outcomes["frame_timeout"] != conns {
		t.Errorf("outcomes %v: every connection should get -32600 naming frame-memory or frame-timeout", outcomes)
	}
	if outcomes["frame_memory"] == 0 {
		t.Errorf("the budget was never reached: %v", outcomes)
	}
	k.WantRSSUnder(t, rssBound)
}

// TestHostileSlowloris: connections that trickle a frame one byte at a
// time are cut off at --frame-timeout; idle ones are not.
func TestHostileSlowloris(t *testing.T) {
	const conns = 50
	k := Start(t, Options{MemCap: 2 << 30, Flags: []string{"--frame-timeout", "1s"}})
	hb := k.Heartbeat(t)
	idle := k.Dial(t)
	var wg sync.WaitGroup
	var timedOut atomic.Int32
	start := time.Now()
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("unix", k.Sock)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"kernel.info","params":{"pad":"`))
				for {
					select {
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
					}
					if _, err := c.Write([]byte("x")); err != nil {
						return
					}
				}
			}()
			if code, budget, ok := closingError(c, 20*time.Second); ok && code == proto.CodeInvalidRequest && budget == "frame_timeout" {
				timedOut.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if n := timedOut.Load(); n != conns {
		t.Errorf("%d of %d trickling connections were cut off with frame-timeout", n, conns)
	}
	if elapsed > 10*time.Second {
		t.Errorf("cutting them off took %v with a 1 s frame timeout", elapsed)
	}
	r := bufio.NewReader(idle)
	SendFrame(t, idle, `{"jsonrpc":"2.0","id":2,"method":"kernel.info"}`)
	if ans := ReadFrame(t, idle, r, 5*time.Second); ans["result"] == nil {
		t.Errorf("idle connection not served after %v: %v", elapsed, ans)
	}
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, 256<<20)
}

// TestHostileConnectionFlood holds 2,000 connections open against
// --max-conns 200 and --max-preattach-conns 50, then churns 20,000 more:
// the kernel's descriptors stay bounded, the oldest unattached are closed
// with -32040 naming max-preattach-conns, the owner (attached) is served,
// and a new client can still connect and attach.
func TestHostileConnectionFlood(t *testing.T) {
	const held, churn = 2000, 20000
	const maxConns, maxWaiting = 200, 50
	k := Start(t, Options{MemCap: 2 << 30, Flags: []string{"--max-conns", fmt.Sprint(maxConns), "--max-preattach-conns", fmt.Sprint(maxWaiting)}})
	hb := k.Heartbeat(t)
	base := openFDs(t, k)
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	peakFDs := 0
	for i := range held {
		c, err := dialRetry(k.Sock)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		conns = append(conns, c)
		if i%100 == 0 {
			peakFDs = max(peakFDs, openFDs(t, k))
		}
	}
	// The older ones were closed to admit later ones (or, while evicted
	// ones drained, refused), each with the reason; at most maxWaiting
	// are still open.
	var mu sync.Mutex
	reasons := map[string]int{}
	var rwg sync.WaitGroup
	for _, c := range conns {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			code, budget, ok := closingError(c, 3*time.Second)
			if !ok {
				if _, err := c.Read(make([]byte, 1)); isTimeout(err) {
					budget = "still open"
				} else {
					budget = "closed without an error"
				}
			} else if code != proto.CodeLeashDenied {
				budget = fmt.Sprintf("code %d", code)
			}
			mu.Lock()
			reasons[budget]++
			mu.Unlock()
		}()
	}
	rwg.Wait()
	if reasons["max_preattach_conns"]+reasons["max_conns"] < held-maxWaiting || reasons["still open"] > maxWaiting || reasons["max_preattach_conns"] == 0 {
		t.Errorf("the %d connections ended with %v; want -32040 naming max-preattach-conns or max-conns for all but at most %d", held, reasons, maxWaiting)
	}
	var wg sync.WaitGroup
	var dialErrs atomic.Int32
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range churn / 8 {
				c, err := net.Dial("unix", k.Sock)
				if err != nil {
					dialErrs.Add(1)
					continue
				}
				c.Close()
			}
			_ = g
		}()
	}
	wg.Wait()
	peakFDs = max(peakFDs, openFDs(t, k))
	// The accept loop drains the backlog the churn filled; a new client
	// then connects and attaches. While connections evicted to admit the
	// churn still drain, a new one may be refused (-32040, then closed,
	// which can reach the client as a reset): it tries again.
	var fresh *client.Client
	var lastErr error
	tries, since := 0, time.Now()
	for deadline := time.Now().Add(10 * time.Second); fresh == nil; tries++ {
		if time.Now().After(deadline) {
			log := k.Stderr()
			t.Fatalf("no new client could attach within 10 s after the flood: %v\nkernel log tail: %s", lastErr, log[max(0, len(log)-2000):])
		}
		c, err := client.Dial(Ctx(t), k.Sock)
		if err != nil {
			if !errors.Is(err, syscall.EAGAIN) {
				t.Fatalf("a new client after the flood: %v", err)
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if _, err := c.Attach(Ctx(t), client.AttachParams{Session: "after-flood"}); err != nil {
			lastErr = err
			c.Close()
			time.Sleep(20 * time.Millisecond)
			continue
		}
		fresh = c
	}
	defer fresh.Close()
	t.Logf("a new client attached after %d refusals, %v after the flood", tries-1, time.Since(since).Round(time.Millisecond))
	if _, err := fresh.Exec(Ctx(t), client.ExecParams{Src: "1 + 1"}); err != nil {
		t.Errorf("exec after the flood: %v", err)
	}
	lat := hb.Stop(t)
	k.Alive(t)
	t.Logf("kernel fds: %d at start, peak %d; %d dial errors in the churn; owner p99 %v", base, peakFDs, dialErrs.Load(), Percentile(lat, 99))
	// Live connections plus evicted ones still draining.
	if peakFDs > base+maxConns+maxWaiting+16 {
		t.Errorf("the kernel held %d descriptors (%d at start) with --max-conns %d", peakFDs, base, maxConns)
	}
	k.WantRSSUnder(t, 512<<20)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// dialRetry dials, waiting while the listen backlog is full (EAGAIN): a
// flood outruns the accept loop, which is the client's problem.
func dialRetry(sock string) (net.Conn, error) {
	for i := 0; ; i++ {
		c, err := net.Dial("unix", sock)
		if err == nil || i == 200 || !errors.Is(err, syscall.EAGAIN) {
			return c, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHostileNonReaders: 50 connections of a token principal subscribe and
// never read while 64 KiB events flood them (unbounded, their queues
// would hold 50 x 128 x 64 KiB = 400 MiB, 12x a 32 MiB --outbox-memory).
// The kernel stays within its budget, the publisher and the owner are
// served.
func TestHostileNonReaders(t *testing.T) {
	const sinks = 50
	k := Start(t, Options{MemCap: 2 << 30, Flags: []string{"--outbox-memory", "32MiB", "--max-principal-conns", "100"}})
	hb := k.Heartbeat(t)
	tok := k.Token(t, "agent:sink")
	for i := range sinks {
		c := k.Dial(t)
		SendFrame(t, c, `{"jsonrpc":"2.0","id":1,"method":"session.attach","params":{"session":"flood","token":"`+tok+`"}}`)
		SendFrame(t, c, `{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{"channel":"user.flood"}}`)
		r := bufio.NewReader(c)
		for id := 1; id <= 2; id++ {
			if ans := ReadFrame(t, c, r, 10*time.Second); ans["error"] != nil {
				t.Fatalf("sink %d: %s", i, ans["error"])
			}
		}
		// Never read again.
	}
	pub := k.Attach(t, "flood", tok)
	payload := strings.Repeat("p", 60<<10)
	for i := range 600 {
		if _, err := pub.EventsPublish(Ctx(t), "user.flood", payload); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	if _, err := pub.Exec(Ctx(t), client.ExecParams{Src: "6 * 7"}); err != nil {
		t.Errorf("publisher exec: %v", err)
	}
	lat := hb.Stop(t)
	k.Alive(t)
	t.Logf("owner p99 %v; peak RSS %d MiB", Percentile(lat, 99), k.PeakRSS(t)>>20)
	k.WantRSSUnder(t, 400<<20)
}

// TestHostileEventBudgets: a token principal publishes 64 KiB payloads
// over 200 channels in four sessions (unbounded: 4 x 200 x 1,024 x 64 KiB,
// 50 GiB) against a 4 MiB session and 16 MiB kernel-wide event budget,
// then fills a session with subscribed channels: a publish, a subscribe
// and a Shoal emit on one more are refused with typed errors.
func TestHostileEventBudgets(t *testing.T) {
	k := Start(t, Options{MemCap: 2 << 30, Flags: []string{
		"--event-session-memory", "4MiB", "--event-memory", "16MiB", "--event-channels", "64"}})
	hb := k.Heartbeat(t)
	tok := k.Token(t, "agent:events")
	payload := strings.Repeat("e", 64<<10-64)
	var wg sync.WaitGroup
	for s := range 4 {
		c := k.Attach(t, fmt.Sprintf("ev%d", s), tok)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 3 {
				for ch := range 200 {
					if _, err := c.EventsPublish(Ctx(t), fmt.Sprintf("user.c%d", ch), payload); err != nil {
						t.Errorf("session %d round %d channel %d: %v", s, round, ch, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()

	// A session whose 64 channels all have subscribers.
	watcher := k.Attach(t, "full", tok)
	for ch := range 64 {
		if _, err := watcher.SubscribeLive(Ctx(t), fmt.Sprintf("user.w%d", ch)); err != nil {
			t.Fatalf("subscribe %d: %v", ch, err)
		}
	}
	c := k.Attach(t, "full", tok)
	_, err := c.EventsPublish(Ctx(t), "user.one-more", 1)
	WantCode(t, err, proto.CodeLeashDenied)
	_, err = c.SubscribeLive(Ctx(t), "user.one-more")
	WantCode(t, err, proto.CodeLeashDenied)
	_, err = c.Exec(Ctx(t), client.ExecParams{Src: `for i in 0..1000 { channel("user.e{i}").emit(i) }`})
	WantLangCode(t, err, "quota_exceeded")
	// Shoal emits of big payloads over many channels in another session
	// are bounded the same way (retention drops the oldest).
	e := k.Attach(t, "emitter", tok)
	if _, err := e.Exec(Ctx(t), client.ExecParams{Src: `var big = (0..6000).map(x => "xxxxxxxxxx").join(""); for i in 0..600 { var n = i % 60; channel("user.e{n}").emit(big) }`}); err != nil {
		t.Errorf("bounded emits: %v", err)
	}
	lat := hb.Stop(t)
	k.Alive(t)
	t.Logf("owner p99 %v; peak RSS %d MiB", Percentile(lat, 99), k.PeakRSS(t)>>20)
	k.WantRSSUnder(t, 400<<20)
}

// TestHostileSubscribeSince: since beyond 2^53-1 is -32602; 2^53-1 is a
// cursor the kernel does not continue numbering after; a refused
// subscribe seeds nothing.
func TestHostileSubscribeSince(t *testing.T) {
	k := Start(t, Options{MemCap: 2 << 30})
	tok := k.Token(t, "agent:since")
	c := k.Attach(t, "s", tok)
	pub := k.Attach(t, "s", tok)
	for _, since := range []uint64{1 << 53, 1<<64 - 1} {
		err := c.Call(Ctx(t), "events.subscribe", map[string]any{"channel": "user.a", "since": since}, nil)
		WantCode(t, err, proto.CodeInvalidParams)
	}
	if err := c.Call(Ctx(t), "events.subscribe", map[string]any{"channel": "user.b", "since": uint64(9007199254740991)}, nil); err != nil {
		t.Fatalf("since 2^53-1: %v", err)
	}
	for _, ch := range []string{"user.a", "user.b"} {
		p, err := pub.EventsPublish(Ctx(t), ch, 1)
		if err != nil {
			t.Fatal(err)
		}
		if p.Seq != 1 {
			t.Errorf("%s numbered from %d after the since attack", ch, p.Seq)
		}
	}
	k.Alive(t)
}
