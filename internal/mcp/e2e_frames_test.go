//go:build linux

package mcp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mcpAddressCap is the address space shoal-mcp gets in these tests: the
// unbounded facade took 2 GB of memory under the same attack.
const mcpAddressCap = 2 << 30

// maxFacadeRSS is the most resident memory shoal-mcp may ever have used
// (VmHWM) while it serves forty 14 MiB calls.
const maxFacadeRSS = 512 << 20

// initRaw starts shoal-mcp by hand under the address-space cap and
// initializes it.
func initRaw(t *testing.T, k *kernel) *rawMCP {
	t.Helper()
	r := startRaw(t, k)
	lim := uint64(mcpAddressCap)
	if err := unix.Prlimit(r.cmd.Process.Pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: lim, Max: lim}, nil); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := r.next(t); m["result"] == nil {
		t.Fatalf("initialize = %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

// alive fails the test when the process has exited.
func alive(t *testing.T, what string, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("%s (pid %d) is gone: %v", what, pid, err)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		if f := strings.Fields(string(b)); len(f) > 2 && f[2] == "Z" {
			t.Fatalf("%s (pid %d) has exited", what, pid)
		}
	}
}

// vmHWM is a process's peak resident set size in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// wantRPCError checks an answer is a JSON-RPC error with code and id.
func wantRPCError(t *testing.T, what string, m map[string]any, code float64, id any) {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != code || m["id"] != id {
		t.Fatalf("%s answered %v, want error %v with id %v", what, m, code, id)
	}
}

// wantSix checks the answer to id is shoal_exec's 42.
func wantSix(t *testing.T, r *rawMCP, id float64) {
	t.Helper()
	m := r.next(t)
	b, _ := json.Marshal(m)
	if m["id"] != id || !strings.Contains(string(b), `"text":"42"`) {
		t.Fatalf("a call after the attack = %s", b)
	}
}

func nestedJSON(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestE2EDeepFrame: valid JSON nested 1,001 and 100,000 deep, in a
// request's params, is answered -32700 with the request's id, and so is
// a bare deep array (id null); frames that are JSON but no message the
// SDK can decode (an empty object, a number, a batch, an empty batch, an
// object id) are answered -32600. shoal-mcp and its kernel stay up and the
// next tools/call is served.
func TestE2EDeepFrame(t *testing.T) {
	k := startKernel(t)
	r := initRaw(t, k)
	for i, depth := range []int{1001, 100000} {
		id := float64(10 + i)
		r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"1","x":%s}}}`, id, nestedJSON(depth)))
		wantRPCError(t, fmt.Sprintf("a frame %d deep", depth), r.next(t), -32700, id)
	}
	r.send(t, nestedJSON(100000))
	wantRPCError(t, "a bare deep array", r.next(t), -32700, nil)
	for _, f := range []string{`{}`, `5`, `[]`, `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`} {
		r.send(t, f)
		wantRPCError(t, f, r.next(t), -32600, nil)
	}
	r.send(t, `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":5}`)
	if m := r.next(t); m["id"] != float64(20) || m["error"] == nil {
		t.Fatalf("tools/call with params 5 answered %v, want an error for id 20", m)
	}
	alive(t, "shoal-mcp", r.cmd.Process.Pid)
	alive(t, "the kernel", k.cmd.Process.Pid)
	r.send(t, `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"6 * 7"}}}`)
	wantSix(t, r, 21)
}

// TestE2EDeepFrameAutostarted: the same deep frame sent to a shoal-mcp
// that started its own kernel leaves both running (the facade exiting
// would have stopped the kernel with it).
func TestE2EDeepFrameAutostarted(t *testing.T) {
	k := newBase(t)
	cmd := command(k, bin("shoal-mcp"), "--socket", k.sock, "--kernel", bin("shoal-kernel"))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedWriter
	stderr.mu, stderr.b = new(sync.Mutex), new(strings.Builder)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rawMCP{in: in, out: bufio.NewReader(out), cmd: cmd, frameWait: frameWaitDefault}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := r.next(t); m["result"] == nil {
		t.Fatalf("initialize = %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":`+nestedJSON(1001)+`}}`)
	wantRPCError(t, "a frame 1,001 deep", r.next(t), -32700, float64(2))
	alive(t, "shoal-mcp", cmd.Process.Pid)
	r.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"6 * 7"}}}`)
	wantSix(t, r, 3)
	stderr.mu.Lock()
	log := stderr.b.String()
	stderr.mu.Unlock()
	if !strings.Contains(log, "started") {
		t.Fatalf("shoal-mcp did not start its kernel: %s", log)
	}
}

// TestE2EArgumentBudget: forty 14 MiB shoal_exec calls sent without
// waiting (each sleeping ten seconds in the kernel, so that they overlap
// however slowly a loaded machine moves 14 MiB frames: with a second,
// CI at load 10 once served all forty one after another) are all
// answered: those the in-flight budget cannot hold with a
// quota_exceeded tool error, the others with their value; shoal-mcp's
// peak resident memory stays under maxFacadeRSS (under an address-space
// cap), and a small call afterwards is served. A call admitted after
// the refusals ahead of it are answered is the next frame only once its
// ten seconds pass, so frames are waited for longer than that.
func TestE2EArgumentBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 560 MiB through shoal-mcp")
	}
	k := startKernel(t)
	r := initRaw(t, k)
	r.frameWait = time.Minute
	const calls, size = 40, 14 << 20
	pad := strings.Repeat("a", size)
	sent := make(chan error, 1)
	go func() {
		for i := range calls {
			f := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"# %s\nsleep 10s\n6 * 7"}}}`+"\n", 100+i, pad)
			if _, err := r.in.Write([]byte(f)); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	served, refused := 0, 0
	for range calls {
		m := r.next(t)
		b, _ := json.Marshal(m)
		res, _ := m["result"].(map[string]any)
		switch {
		case res == nil:
			t.Fatalf("a large call answered %.300s", b)
		case res["isError"] == true && strings.Contains(string(b), `"quota_exceeded"`):
			refused++
		case strings.Contains(string(b), `"text":"42"`):
			served++
		default:
			t.Fatalf("a large call answered %.300s", b)
		}
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	hwm := vmHWM(t, r.cmd.Process.Pid)
	t.Logf("40 calls of 14 MiB: %d served, %d refused quota_exceeded; shoal-mcp VmHWM %d MiB", served, refused, hwm>>20)
	if refused == 0 || served == 0 {
		t.Fatalf("%d served, %d refused: want some of each", served, refused)
	}
	if hwm > maxFacadeRSS {
		t.Fatalf("shoal-mcp peaked at %d MiB resident, over %d MiB", hwm>>20, maxFacadeRSS>>20)
	}
	alive(t, "shoal-mcp", r.cmd.Process.Pid)
	r.send(t, `{"jsonrpc":"2.0","id":999,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"6 * 7"}}}`)
	wantSix(t, r, 999)
}
