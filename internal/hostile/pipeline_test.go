//go:build linux

package hostile

import (
	"bufio"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Pipelining through the binary (issue 9): a client that writes requests
// faster than it reads answers is flow controlled (the kernel stops
// reading it while its answers wait), not disconnected, and costs the
// kernel a bounded reply window whatever it writes.

// pipelineHang bounds each wait of these tests for the kernel (an answer,
// a batch of writes): a kernel that stopped serving, not a slow machine.
// TestHostilePipelinedNonReaders's later attaches wait behind the
// earlier connections' floods, and beside two busy loops one waited past
// the 10 s it was given.
const pipelineHang = 5 * time.Minute

// writeAll writes n frames built by frame on c, one by one, from a
// goroutine; the channel gets how many were written whole once it stops
// (all of them, or fewer when the write fails or times out).
func writeAll(c net.Conn, n int, within time.Duration, frame func(i int) string) <-chan int {
	done := make(chan int, 1)
	go func() {
		c.SetWriteDeadline(time.Now().Add(within))
		w := bufio.NewWriterSize(c, 64<<10)
		i := 0
		for ; i < n; i++ {
			if _, err := w.WriteString(frame(i) + "\n"); err != nil {
				break
			}
		}
		if w.Flush() != nil && i == n {
			i--
		}
		done <- i
	}()
	return done
}

// readAnswers reads n answers from r and checks that ids 0..n-1 each came
// once, without an error; check, when set, sees each result.
func readAnswers(t *testing.T, c net.Conn, r *bufio.Reader, n int, check func(result json.RawMessage) bool) {
	t.Helper()
	seen := make([]bool, n)
	for a := 0; a < n; a++ {
		ans := ReadFrame(t, c, r, pipelineHang)
		i, err := strconv.Atoi(string(ans["id"]))
		if err != nil || i < 0 || i >= n || seen[i] {
			t.Fatalf("answer %d: unexpected id %s", a, ans["id"])
		}
		seen[i] = true
		if ans["error"] != nil || (check != nil && !check(ans["result"])) {
			t.Fatalf("answer %d: %.200s %.200s", i, ans["result"], ans["error"])
		}
	}
}

// TestHostilePipelinedExecsAnswered: 10,000 `exec "1 + 1"` written before
// any answer is read all get their answers.
func TestHostilePipelinedExecsAnswered(t *testing.T) {
	k := Start(t, Options{MemCap: 2 << 30})
	tok := k.Token(t, "agent:pipe")
	c := k.Dial(t)
	SendFrame(t, c, `{"jsonrpc":"2.0","id":-1,"method":"session.attach","params":{"session":"pipe","token":"`+tok+`"}}`)
	r := bufio.NewReaderSize(c, 1<<20)
	if ans := ReadFrame(t, c, r, pipelineHang); ans["error"] != nil {
		t.Fatalf("attach: %s", ans["error"])
	}
	const n = 10000
	wrote := writeAll(c, n, pipelineHang, func(i int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"exec","params":{"src":"1 + 1"}}`
	})
	if got := <-wrote; got != n {
		t.Fatalf("wrote %d of %d requests before reading: the kernel stopped taking them", got, n)
	}
	readAnswers(t, c, r, n, func(res json.RawMessage) bool {
		var v struct {
			Render string `json:"render"`
		}
		return json.Unmarshal(res, &v) == nil && v.Render == "2"
	})
	k.Alive(t)
	t.Logf("peak RSS %d MiB", k.PeakRSS(t)>>20)
}

// nonReaderBeats is how many owner heartbeats TestHostilePipelinedNonReaders
// wants answered while every non-reader is stalled at its window.
const nonReaderBeats = 5

// TestHostilePipelinedNonReaders: 20 connections of a token principal
// each write 4,000 execs whose answers are ~6 KiB (unbounded, 480 MiB of
// answers) and read none. The kernel stops reading them once each has its
// reply window (4 MiB) queued: their writes stall, the owner's heartbeat
// is served (nonReaderBeats beats answered, right, while every writer is
// still stalled; how fast is the benchmarks' to show: a bound on each
// beat's latency failed this test on a loaded machine), RSS stays
// bounded. One of them then reads and gets every answer: it was slowed,
// not dropped.
func TestHostilePipelinedNonReaders(t *testing.T) {
	const conns, n = 20, 4000
	k := Start(t, Options{MemCap: 2 << 30})
	hb := k.Pulse(t)
	tok := k.Token(t, "agent:nonreader")
	big := strings.Repeat("x", 3000)
	frame := func(i int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"exec","params":{"src":"\"` + big + `\""}}`
	}
	cs := make([]net.Conn, conns)
	rs := make([]*bufio.Reader, conns)
	wrote := make([]<-chan int, conns)
	for i := range cs {
		cs[i] = k.Dial(t)
		SendFrame(t, cs[i], `{"jsonrpc":"2.0","id":-1,"method":"session.attach","params":{"session":"nr`+strconv.Itoa(i)+`","token":"`+tok+`"}}`)
		rs[i] = bufio.NewReaderSize(cs[i], 1<<20)
		if ans := ReadFrame(t, cs[i], rs[i], pipelineHang); ans["error"] != nil {
			t.Fatalf("attach %d: %s", i, ans["error"])
		}
		wrote[i] = writeAll(cs[i], n, pipelineHang, frame)
	}
	time.Sleep(5 * time.Second) // long enough to fill every window many times over
	stalled := func() {
		t.Helper()
		for i := range cs {
			select {
			case got := <-wrote[i]:
				t.Fatalf("non-reader %d wrote %d of %d requests: the kernel kept reading it", i, got, n)
			default:
			}
		}
	}
	stalled()
	// The owner is served while the non-readers hold their windows.
	want := hb.Answered() + nonReaderBeats
	for hb.Answered() < want {
		select {
		case <-k.Exited():
			k.Alive(t)
		case <-time.After(20 * time.Millisecond):
		}
	}
	stalled()
	lat := hb.Stop(t)
	k.Alive(t)
	peak := k.PeakRSS(t)
	t.Logf("owner p99 %v; peak RSS %d MiB", Percentile(lat, 99), peak>>20)
	// 20 reply windows of 4 MiB and the sessions' transcripts are what is
	// kept; the rest is the runtime's slack. Since the journal's writes
	// went to its intent log (d69a4e7) the peak moved from 466-485 MiB to
	// 507-565 MiB here, with the pending writes bounded at 8 MiB and a
	// batch at 256 rows; the cause is not yet found (see the issue 11 note).
	k.WantRSSUnder(t, 640<<20)

	readAnswers(t, cs[0], rs[0], n, nil)
	if got := <-wrote[0]; got != n {
		t.Errorf("non-reader 0 wrote %d of %d once it read", got, n)
	}
}
