package mcp_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/mcp"
)

// inProc is mcp.Main served in this process on pipes, against a real
// kernel, driven frame by frame (so that the test can read what the
// package counts).
type inProc struct {
	in  *os.File
	out *bufio.Reader
}

func startInProc(t *testing.T, k *kernel) *inProc {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- mcp.Main(context.Background(), []string{"--socket", k.sock, "--no-autostart"}, inR, outW, &stderr)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("Main did not return after its stdin ended")
		}
		outR.Close()
	})
	p := &inProc{in: inW, out: bufio.NewReader(outR)}
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if line := p.next(t); !strings.Contains(line, `"result"`) {
		t.Fatalf("initialize = %s", line)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *inProc) send(t *testing.T, frame string) {
	t.Helper()
	if _, err := io.WriteString(p.in, frame+"\n"); err != nil {
		t.Fatal(err)
	}
}

// next reads the next frame as it was written (within 10 s).
func (p *inProc) next(t *testing.T) string {
	t.Helper()
	return nextLine(t, p.out, frameWaitDefault)
}

// TestE2EDirectMatchesSDK: plain shoal_exec calls, served on the stdio
// direct path, are answered with exactly the bytes the SDK answers the
// same calls with when an empty _meta sends them through it (but for
// the number of each exec's output and each plan's ref): values,
// strings the encoder could escape, kernel errors, a parse error, a
// plan, arguments the schema refuses, and odd argument objects (the
// SDK's path decoding shoal_exec's arguments by json.Unmarshal alone,
// the direct path by its own decoder where it reads them). Only the
// plain frames are counted as direct.
func TestE2EDirectMatchesSDK(t *testing.T) {
	k := startKernel(t)
	p := startInProc(t, k)
	argsList := []string{
		`{"src":"6 * 7"}`,
		`{"src":"[3, 1, 2].sort()"}`,
		`{"src":"\"<b>&\u00e9\u2028</b>\""}`,
		`{"src":"{a: 1, b: [true, null, 2.5]}"}`,
		`{"src":"no_such_name_here"}`,
		`{"src":"1 +"}`,
		`{"src":"6 * 7","mode":"plan"}`,
		`{"src":"6 * 7","position":"stmt"}`,
		`{}`,
		`{"src":5}`,
		`{"src":"6 * 7","bogus":1}`,
		` { "src" : "6 * 7" } `,
		// Odd argument objects (the eleventh round's decoder of
		// shoal_exec's arguments reads some and declines the rest).
		`{"src":"6 * 7","timeout_ms":5000}`,
		`{"src":"6 * 7","timeout_ms":0}`,
		`{"src":"6 * 7","timeout_ms":-1}`,
		`{"src":"6 * 7","timeout_ms":1.5}`,
		`{"src":"6 * 7","timeout_ms":1e3}`,
		`{"src":"6 * 7","timeout_ms":"5"}`,
		`{"src":"6 * 7","timeout_ms":99999999999999999999}`,
		`{"src":"6 * 7","background":false}`,
		`{"src":"6 * 7","mode":"run","position":"value"}`,
		`{"position":"value","src":"6 * 7","mode":"run"}`,
		`{"src":"6 * 7","mode":null}`,
		`{"src":null}`,
		`{"SRC":"6 * 7"}`,
		`{"Src":"1","src":"6 * 7"}`,
		`{"src":"1","src":"6 * 7"}`,
		`{"s\u0072c":"6 * 7"}`,
		`{"src":"\u0036 * 7"}`,
		`{"src":"\"\u2028<&>\ud800\\\"\t\"","position":"value"}`,
		`{"src":"[1, 2, 3]","elide":{"max_items":2}}`,
		`{"src":"6 * 7","elide":null}`,
		`{"src":"6 * 7","mode":"RUN"}`,
	}
	before := mcp.DirectCalls()
	for i, args := range argsList {
		id := 100 + i
		direct := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"shoal_exec","arguments":` + args + `}}`
		viaSDK := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"_meta":{},"name":"shoal_exec","arguments":` + args + `}}`
		// The direct path with shoal_exec's own argument decoder, the
		// SDK's with json.Unmarshal's alone.
		p.send(t, direct)
		got := p.next(t)
		mcp.SetGenericExecArgs(true)
		p.send(t, viaSDK)
		want := p.next(t)
		mcp.SetGenericExecArgs(false)
		if testing.Verbose() {
			t.Logf("%s => %s", args, got)
		}
		// Each exec's output has a number of its own, each plan a ref.
		if got, want = fresh.ReplaceAllString(got, "#"), fresh.ReplaceAllString(want, "#"); got != want {
			t.Errorf("arguments %s:\ndirect %s\nSDK    %s", args, got, want)
		}
	}
	// A string id, with what an encoder could escape.
	p.send(t, `{"jsonrpc":"2.0","id":"s<&>\u00e9","method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"6 * 7"}}}`)
	got := fresh.ReplaceAllString(p.next(t), "#")
	p.send(t, `{"jsonrpc":"2.0","id":"s<&>\u00e9","method":"tools/call","params":{"_meta":{},"name":"shoal_exec","arguments":{"src":"6 * 7"}}}`)
	if want := fresh.ReplaceAllString(p.next(t), "#"); got != want {
		t.Errorf("a string id:\ndirect %s\nSDK    %s", got, want)
	}
	if n := mcp.DirectCalls() - before; n != int64(len(argsList))+1 {
		t.Errorf("%d calls took the direct path, want %d", n, len(argsList)+1)
	}
	// Not plain: another tool, a progress token, a string id, a name
	// written with an escape; these go to the SDK, and are answered.
	before = mcp.DirectCalls()
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":200,"method":"tools/call","params":{"name":"shoal_plan","arguments":{"src":"6 * 7"}}}`,
		`{"jsonrpc":"2.0","id":201,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"shoal_exec","arguments":{"src":"6 * 7"}}}`,
		`{"jsonrpc":"2.0","id":202,"method":"tools/call","params":{"n\u0061me":"shoal_exec","arguments":{"src":"6 * 7"}}}`,
		`{"jsonrpc":"2.0","id":203,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"6 * 7"},"arguments":{"src":"1"}}}`,
	} {
		p.send(t, frame)
		if line := p.next(t); !strings.Contains(line, `"id":2`) {
			t.Errorf("%s answered %s", frame, line)
		}
	}
	if n := mcp.DirectCalls() - before; n != 0 {
		t.Errorf("%d calls that are not plain took the direct path", n)
	}
}

// fresh matches what differs between two runs of the same call: the
// output's number and the plan's ref.
var fresh = regexp.MustCompile(`out[:/][0-9]+|plan:[0-9a-f]+`)

// TestE2EDirectBeforeInitialize: a call before initialize is refused as
// the SDK refuses it (it is not taken on the direct path).
func TestE2EDirectBeforeInitialize(t *testing.T) {
	k := startKernel(t)
	r := startRaw(t, k)
	r.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"6 * 7"}}}`)
	m := r.next(t)
	e, _ := m["error"].(map[string]any)
	if e == nil || !strings.Contains(e["message"].(string), "invalid during session initialization") {
		t.Fatalf("a call before initialize = %v", m)
	}
}
