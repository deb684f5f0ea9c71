package mcp_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/internal/diewithparent"
	"github.com/shoalgo/shoal/internal/fastpath"
)

// The canned server is this test binary run again with cannedEnv set to
// a tools/call result: it answers every request at once, tools/call
// with that result, without a kernel (runMain calls cannedServe).
const cannedEnv = "SHOAL_MCP_TEST_CANNED_RESULT"

// cannedMaxFrame bounds a request frame the canned server reads.
const cannedMaxFrame = 1 << 20

// BenchmarkSDKClient is the SDK client's own share of
// ExecThroughMCP/pair. The Go SDK client calls shoal_exec on a canned
// server (above) that answers with the very result bytes shoal-mcp gave
// the same call, beside the same request frame written and its answer
// read by hand through the same kind of pipes to a second canned server.
// sdk-added-p50-us, the difference of the two p50s, is what the client
// adds to each call of the row on its side of the pipes: no change to
// the facade takes it off.
func BenchmarkSDKClient(b *testing.B) {
	result := cannedResult(b)
	c := sdk.NewClient(&sdk.Implementation{Name: "shoal-bench", Version: "1"}, nil)
	cs, err := c.Connect(ctx(b), &sdk.CommandTransport{Command: cannedCommand(result)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	hand := cannedCommand(result)
	in, err := hand.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := hand.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := hand.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); hand.Wait() })
	br := bufio.NewReader(out)

	p := &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "[3, 1, 2].sort()"}}
	viaSDK := func() error {
		res, err := cs.CallTool(ctx(b), p)
		if err == nil && res.IsError {
			err = fmt.Errorf("shoal_exec: %+v", res.Content)
		}
		return err
	}
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"src":"[3, 1, 2].sort()"},"name":"shoal_exec"}}` + "\n")
	byHand := func() error {
		if _, err := in.Write(frame); err != nil {
			return err
		}
		_, err := br.ReadSlice('\n')
		return err
	}
	var pr fastpath.Pair
	for b.Loop() {
		if err := pr.Run(viaSDK, byHand); err != nil {
			b.Fatal(err)
		}
	}
	pr.Report(b, false)
	if len(pr.Shoal) > 0 {
		b.ReportMetric(fastpath.Micros(fastpath.Quantile(pr.Shoal, 0.5)-fastpath.Quantile(pr.Floor, 0.5)), "sdk-added-p50-us")
	}
}

// cannedResult is the result of the row's shoal_exec as a real
// shoal-mcp writes it, taken from one call made by hand.
func cannedResult(b *testing.B) json.RawMessage {
	k := newBase(b)
	k.start(b)
	cmd := exec.Command(bin("shoal-mcp"), "--socket", k.sock, "--no-autostart")
	cmd.Env, cmd.Dir = k.env(), k.dir
	cmd.SysProcAttr = diewithparent.Attr()
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	br := bufio.NewReader(out)
	for _, f := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"[3, 1, 2].sort()"}}}`,
	} {
		if _, err := io.WriteString(in, f+"\n"); err != nil {
			b.Fatal(err)
		}
	}
	for range 2 {
		line := nextLine(b, br, frameWaitDefault)
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			b.Fatalf("frame %q: %v", line, err)
		}
		if m.ID == 2 {
			var r sdk.CallToolResult
			if err := json.Unmarshal(m.Result, &r); err != nil || r.IsError || r.StructuredContent == nil {
				b.Fatalf("shoal_exec answered %s (%v)", m.Result, err)
			}
			return m.Result
		}
	}
	b.Fatal("no answer to the tools/call")
	return nil
}

// cannedCommand is a canned server answering tools/call with result.
func cannedCommand(result json.RawMessage) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), cannedEnv+"="+string(result))
	cmd.SysProcAttr = diewithparent.Attr()
	return cmd
}

// cannedServe is the canned server: on one processor, as shoal-mcp
// runs, it answers each request frame on stdin with an id — initialize
// with the protocol version asked for, tools/call with result, anything
// else with an empty result — until stdin ends.
func cannedServe(result string) int {
	runtime.GOMAXPROCS(1)
	r := bufio.NewReaderSize(os.Stdin, cannedMaxFrame)
	w := bufio.NewWriter(os.Stdout)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintln(os.Stderr, "canned server:", err)
			return 1
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue // a notification
		}
		res := `{}`
		switch m.Method {
		case "initialize":
			v, _ := json.Marshal(m.Params.ProtocolVersion)
			res = `{"capabilities":{"tools":{}},"protocolVersion":` + string(v) + `,"serverInfo":{"name":"canned","version":"1"}}`
		case "tools/call":
			res = result
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, res)
		if err := w.Flush(); err != nil {
			return 1
		}
	}
}

// TestCannedServer: the canned server answers the SDK client's
// initialize and a tools/call with the result it was given, and a frame
// by hand with the same result under the frame's own id, so
// BenchmarkSDKClient times the same answer both ways.
func TestCannedServer(t *testing.T) {
	result := json.RawMessage(`{"content":[{"type":"text","text":"2"}],"structuredContent":{"ref":"out:1","value":{"$":"int","v":2}}}`)
	c := sdk.NewClient(&sdk.Implementation{Name: "shoal-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx(t), &sdk.CommandTransport{Command: cannedCommand(result)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx(t), &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "1 + 1"}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res.StructuredContent)
	if string(got) != `{"ref":"out:1","value":{"$":"int","v":2}}` || len(res.Content) != 1 {
		t.Fatalf("CallTool = %s, %d contents", got, len(res.Content))
	}

	hand := cannedCommand(result)
	in, _ := hand.StdinPipe()
	out, _ := hand.StdoutPipe()
	if err := hand.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); hand.Wait() }()
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":"x7","method":"tools/call","params":{}}`+"\n")
	line := nextLine(t, bufio.NewReader(out), frameWaitDefault)
	if want := `{"jsonrpc":"2.0","id":"x7","result":` + string(result) + "}\n"; line != want {
		t.Fatalf("by hand: %q, want %q", line, want)
	}
}
