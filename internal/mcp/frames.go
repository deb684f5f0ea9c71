package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxFrame bounds one incoming MCP frame (a line of stdin); a longer one
// is answered -32700 and skipped.
const MaxFrame = 16 << 20

// keepLineBuffer is the largest line buffer the reader keeps between
// frames; a bigger one (a large frame went by) is let go.
const keepLineBuffer = 1 << 20

// budgetName is how a refusal names the in-flight budget.
const budgetName = "mcp_in_flight_bytes"

// Codes of the answers the gate writes itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeQuota          = -32010 // the kernel's code for a budget (proto.CodeLeashDenied)
)

// lockedWriter serialises whole frames on the facade's output, so that
// the answers the gate writes never split one of the SDK's frames (the
// SDK writes each frame with one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// gate stands between stdin and the SDK. It screens every frame before
// the SDK decodes it, answering itself those the SDK would either drop
// silently or die of (not JSON, too long, too deep, not a JSON-RPC
// message, a batch), and charges each request the size of its frame
// against the in-flight budget until the SDK writes its answer.
type gate struct {
	out *lockedWriter // stdout; the gate's own answers go straight here

	mu    sync.Mutex
	held  map[string]int64 // request id key → bytes charged
	total int64
	limit int64
}

func newGate(out *lockedWriter, limit int64) *gate {
	return &gate{out: out, held: make(map[string]int64), limit: limit}
}

// charged reports the bytes charged now (tests).
func (g *gate) charged() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.total
}

// input returns in, line by line, without the lines the gate answered
// itself: the frames the SDK's own stdio transport would read (the
// facade's transport, stdio, takes them decoded instead).
func (g *gate) input(in io.ReadCloser) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		err := g.frames(in, func(t []byte, _ *scanned) bool {
			if _, werr := pw.Write(append(t, '\n')); werr != nil {
				in.Close()
				return false
			}
			return true
		})
		if err != nil {
			pw.CloseWithError(err)
		}
	}()
	return readCloser{pr, in}
}

// frames reads in line by line, screens each frame and hands pass each
// one it did not answer itself (trimmed, without its newline; it and the
// scan alias a buffer reused for the next line). It returns the error
// that ended the input (io.EOF at its end), or nil once pass returns
// false.
func (g *gate) frames(in io.Reader, pass func(t []byte, sc *scanned) bool) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= MaxFrame {
			line = append(line, chunk...)
		} else {
			line = append(line[:0], '!') // too long: not JSON, whatever follows
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			answer, sc := g.check(t)
			if answer != nil {
				_, _ = g.out.Write(answer)
			} else if !pass(t, &sc) {
				return nil
			}
		}
		line = line[:0]
		if cap(line) > keepLineBuffer {
			line = nil
		}
		if err != nil {
			return err
		}
	}
}

// releaseID drops the charge of the request that an answer with id
// answers, if any (the transport calls it as it writes each answer).
func (g *gate) releaseID(id jsonrpc.ID) {
	var key string
	switch v := id.Raw().(type) {
	case int64:
		key = "n" + strconv.FormatInt(v, 10)
	case string:
		key = "s" + v
	default:
		return
	}
	g.mu.Lock()
	g.total -= g.held[key]
	delete(g.held, key)
	g.mu.Unlock()
}

// screen decides what becomes of one frame (without its newline): nil
// passes it to the SDK, anything else is the answer the gate writes
// instead. A request it passes is charged to the budget.
func (g *gate) screen(t []byte) []byte {
	answer, _ := g.check(t)
	return answer
}

// check is screen, also returning the frame's scan.
func (g *gate) check(t []byte) (answer []byte, sc scanned) {
	sc = scanFrame(t, envNames)
	answer = g.verdict(t, &sc)
	return answer, sc
}

// verdict is screen's decision on t, scanned as sc.
func (g *gate) verdict(t []byte, sc *scanned) []byte {
	if !sc.valid {
		return rpcError(nil, codeParseError, "parse error: the frame is not valid JSON", nil)
	}
	var rawID []byte // the id to answer with, when it is a usable one
	if s := sc.members[envID]; sc.first == '{' && s != nil && len(s) <= MaxIDBytes {
		if _, ok := idKey(s); ok {
			rawID = s
		}
	}
	switch {
	case sc.depth > MaxFrameDepth:
		return rpcError(rawID, codeParseError, fmt.Sprintf("parse error: the frame nests deeper than %d levels", MaxFrameDepth), nil)
	case sc.first == '[':
		return rpcError(nil, codeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message a line", nil)
	case sc.first != '{':
		return rpcError(nil, codeInvalidRequest, "invalid request: not a JSON-RPC message object", nil)
	}
	invalid := func(why string) []byte { return rpcError(rawID, codeInvalidRequest, "invalid request: "+why, nil) }
	if sc.dup {
		return invalid("a message member appears twice")
	}
	if v := sc.members[envJSONRPC]; v == nil || stringValue(v) != "2.0" {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	id := sc.members[envID]
	hasID := id != nil && string(id) != "null"
	if hasID && rawID == nil {
		return rpcError(nil, codeInvalidRequest, fmt.Sprintf("invalid request: the id must be a string or a number, at most %d bytes", MaxIDBytes), nil)
	}
	method := sc.members[envMethod]
	if method != nil && method[0] != '"' {
		return invalid(`"method" must be a string`)
	}
	if method == nil || !hasID {
		// A response or a notification: no answer is owed, so no charge
		// can be released; it must be small and well formed.
		if len(t) > MaxNoReplyFrame {
			return rpcError(nil, codeInvalidRequest, fmt.Sprintf("invalid request: a notification or response over %d bytes", MaxNoReplyFrame), nil)
		}
		if method == nil {
			if !hasID {
				return rpcError(nil, codeInvalidRequest, "invalid request: a message with neither a method nor an id", nil)
			}
			if e := sc.members[envError]; e != nil && !validErrorObject(e) {
				return rpcError(nil, codeInvalidRequest, "invalid request: a response's error must be an object with an integer code and a string message", nil)
			}
		}
		return nil
	}
	key, _ := idKey(rawID)
	n := int64(len(t))
	g.mu.Lock()
	_, dup := g.held[key]
	fits := g.total+n <= g.limit
	if !dup && fits {
		g.held[key] = n
		g.total += n
	}
	g.mu.Unlock()
	switch {
	case dup:
		return rpcError(nil, codeInvalidRequest, "invalid request: request id "+string(rawID)+" is already in flight", nil)
	case !fits:
		return g.refuse(rawID, stringValue(method), n)
	}
	return nil
}

// refuse answers a request that does not fit the in-flight budget: a
// tool call with a tool error (the model reads it and may retry), any
// other request with a JSON-RPC error; both carry quota_exceeded.
func (g *gate) refuse(id []byte, method string, n int64) []byte {
	msg := fmt.Sprintf("quota exceeded: shoal-mcp is already serving requests of %d bytes together, and this one's %d bytes do not fit its budget of %d; retry once some have answered",
		g.charged(), n, g.limit)
	data := map[string]any{"code": "quota_exceeded", "budget": budgetName, "limit": g.limit, "size": n}
	if method != "tools/call" {
		return rpcError(id, codeQuota, msg, data)
	}
	res := map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": fmt.Sprintf("error quota_exceeded (%d): %s", codeQuota, msg)}},
		"structuredContent": toolErrorBody{Code: codeQuota, Error: "quota_exceeded", Message: msg, Data: data},
		"isError":           true,
	}
	return frame(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "result": res})
}

// rpcError is a JSON-RPC error frame; id nil answers with id null.
func rpcError(id []byte, code int, msg string, data any) []byte {
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	raw := json.RawMessage("null")
	if id != nil {
		raw = id
	}
	return frame(map[string]any{"jsonrpc": "2.0", "id": raw, "error": e})
}

// frame encodes v as one line.
func frame(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil { // not reached: every value above encodes
		b = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return append(b, '\n')
}

// idKey is how the gate files a request id: a string by its text, a
// number as the SDK reads it (a float64 made an int64), so that the id of
// the answer the SDK writes finds the same key. ok is false for anything
// else, and for a number a float64 cannot hold.
func idKey(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s" + s, true
	case c == '-' || c >= '0' && c <= '9':
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return "", false
		}
		return "n" + strconv.FormatInt(int64(f), 10), true
	}
	return "", false
}

// stringValue decodes a short JSON string ("" for anything else).
func stringValue(raw []byte) string {
	if len(raw) > maxKeyBytes || len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	if s, ok := plainStringValue(raw); ok {
		return s // as json.Unmarshal reads it, without reflection (issue 24)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// validErrorObject reports whether raw (valid JSON) is what the SDK can
// decode as a response's error: null, or an object whose code, if there,
// is an integer an int64 holds and whose message, if there, is a string.
func validErrorObject(raw []byte) bool {
	if string(raw) == "null" {
		return true
	}
	sc := scanFrame(raw, errNames)
	if !sc.valid || sc.first != '{' || sc.dup {
		return false
	}
	if c := sc.members[errCode]; c != nil {
		if _, err := strconv.ParseInt(string(c), 10, 64); err != nil {
			return false
		}
	}
	if m := sc.members[errMessage]; m != nil && m[0] != '"' {
		return false
	}
	return true
}

// readCloser reads from the checked pipe and closes stdin too.
type readCloser struct {
	*io.PipeReader
	in io.Closer
}

func (r readCloser) Close() error {
	r.PipeReader.Close()
	return r.in.Close()
}
