package kernel

// The parse RPC end to end: a client writes a `parse` request for a 10 kB
// script to a real kernel over a Unix socket and reads the whole answer (the
// script's AST as JSON), beside a floor in the same run: a bare Unix-socket
// server that decodes the same request and answers a fixed small result.
//
//	go test -run '^$' -bench ParseRPC10KB -benchtime 3000x -count 5 ./internal/kernel/

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// parseBenchSource is the ~10 kB script internal/syntax's BenchmarkParse10KB
// parses, built from the same chunk.
func parseBenchSource(tb testing.TB) string {
	tb.Helper()
	chunk, err := os.ReadFile(filepath.Join("..", "syntax", "testdata", "bench", "chunk.shl"))
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	for b.Len() < 10*1024 {
		b.Write(chunk)
	}
	return b.String()
}

// rpcClient writes one request line at a time and reads its whole answer
// line, however long.
type rpcClient struct {
	nc   net.Conn
	r    *bufio.Reader
	req  []byte
	line []byte
}

func dialRPC(tb testing.TB, sock string) *rpcClient {
	tb.Helper()
	nc, err := net.Dial("unix", sock)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { nc.Close() })
	return &rpcClient{nc: nc, r: bufio.NewReaderSize(nc, 64<<10)}
}

// roundTrip sends method with params (a JSON object) as request id and
// returns the answer line without its newline; the slice is reused by the
// next call.
func (c *rpcClient) roundTrip(id int, method string, params []byte) ([]byte, error) {
	b := append(c.req[:0], `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":`...)
	b = append(b, params...)
	b = append(b, "}\n"...)
	c.req = b
	if _, err := c.nc.Write(b); err != nil {
		return nil, fmt.Errorf("write: %w", err)
	}
	c.line = c.line[:0]
	for {
		part, err := c.r.ReadSlice('\n')
		c.line = append(c.line, part...)
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			return nil, fmt.Errorf("read: %w", err)
		}
	}
	return c.line[:len(c.line)-1], nil
}

// checkAnswer checks that line answers request id with a result that
// starts with prefix.
func checkAnswer(line []byte, id int, prefix string) error {
	want := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":` + prefix
	if !bytes.HasPrefix(line, []byte(want)) {
		return fmt.Errorf("answer %.200q does not start with %q", line, want)
	}
	return nil
}

// checkFloorAnswer checks that line is the floor's answer to request id.
func checkFloorAnswer(line []byte, id int) error {
	if !bytes.Contains(line, []byte(`"id":`+strconv.Itoa(id)+`,`)) || !bytes.Contains(line, []byte(`"ast_version":2`)) {
		return fmt.Errorf("floor answer %.200q is not for request %d", line, id)
	}
	return nil
}

// startParseFloor starts the floor: a Unix-socket server in the style of
// the exec load floor (startJSONFloor) that decodes each request with
// encoding/json into a map (the 10 kB source included) and answers a fixed
// small parse-shaped result with the request's id. It returns the socket
// path.
func startParseFloor(tb testing.TB) string {
	return startJSONFloor(tb, "floor.sock", 64<<10, func(req map[string]any) any {
		if params, _ := req["params"].(map[string]any); params == nil || params["src"] == nil {
			return nil
		}
		return map[string]any{"ast_version": 2, "ast": map[string]any{"stmts": []any{}}}
	})
}

// BenchmarkParseRPC10KB alternates a parse round trip to the kernel with
// one to the floor, timing each, and reports both medians and 99th
// percentiles and the ratio of the medians.
func BenchmarkParseRPC10KB(b *testing.B) {
	src := parseBenchSource(b)
	params, err := json.Marshal(map[string]string{"src": src})
	if err != nil {
		b.Fatal(err)
	}
	kern := dialRPC(b, loadKernel(b))
	floor := dialRPC(b, startParseFloor(b))
	// Warm both up, and check the kernel's answer is a whole AST.
	for id := 1; id <= 20; id++ {
		line, err := kern.roundTrip(id, "parse", params)
		if err != nil {
			b.Fatal(err)
		}
		if err := checkAnswer(line, id, `{"ast_version":2,"ast":{"stmts":[`); err != nil {
			b.Fatal(err)
		}
		if !json.Valid(line) {
			b.Fatal("kernel answer is not valid JSON")
		}
		line, err = floor.roundTrip(id, "parse", params)
		if err != nil {
			b.Fatal(err)
		}
		if err := checkFloorAnswer(line, id); err != nil {
			b.Fatal(err)
		}
	}
	kLat := make([]time.Duration, 0, b.N)
	fLat := make([]time.Duration, 0, b.N)
	var answer int
	b.ResetTimer()
	for i := range b.N {
		id := 100 + i
		t0 := time.Now()
		line, err := kern.roundTrip(id, "parse", params)
		if err != nil {
			b.Fatal(err)
		}
		kLat = append(kLat, time.Since(t0))
		answer = len(line)
		if err := checkAnswer(line, id, `{"ast_version":2,`); err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		line, err = floor.roundTrip(id, "parse", params)
		if err != nil {
			b.Fatal(err)
		}
		fLat = append(fLat, time.Since(t0))
		if err := checkFloorAnswer(line, id); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	slices.Sort(kLat)
	slices.Sort(fLat)
	q := func(lat []time.Duration, p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds())
	}
	b.ReportMetric(q(kLat, 0.5), "kernel-p50-us")
	b.ReportMetric(q(kLat, 0.99), "kernel-p99-us")
	b.ReportMetric(q(fLat, 0.5), "floor-p50-us")
	b.ReportMetric(q(fLat, 0.99), "floor-p99-us")
	b.ReportMetric(float64(kLat[len(kLat)/2])/float64(fLat[len(fLat)/2]), "p50-ratio")
	b.ReportMetric(float64(answer), "answer-bytes")
}
