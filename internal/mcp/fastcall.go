package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/proto"
)

// The direct path (issue 24). Over stdio, a plain tools/call of
// shoal_exec is served by the gate's goroutine starting the tool's
// handler itself, instead of handing the request to the SDK's read loop,
// which queues it to a goroutine that starts another to run it (three
// hand-offs, each a wake-up, and the SDK's decoding of the params and
// _meta). It calls the very handler the SDK would (toolHandler's, with
// the same argument validation and the same MaxInFlight bound), does
// what the SDK does around it, and writes the answer the SDK would
// write, byte for byte (TestE2EDirectMatchesSDK).
//
// Plain means nothing the SDK would treat otherwise: a request with an
// id; params of exactly "name" and an object "arguments" (no _meta, so
// no progress token and no per-request protocol or capabilities, no
// inputResponses or requestState), with names written without escapes;
// a session that is initialized, whose client asked for a revision
// before 2026-07-28 (no multi round-trip results) and did not declare
// the tasks extension (tasks.go's middleware would wrap the call).
// Anything else goes to the SDK as before. The SDK cannot cancel a call
// it never saw, so the gate also reads notifications/cancelled (still
// passing each to the SDK) and cancels a direct call it names; a call
// running when stdin ends or the connection closes is cancelled, as the
// SDK cancels its own, and Facade.Run waits for it before returning.

// directTools are the tools whose plain calls take the direct path.
var directTools = map[string]bool{"shoal_exec": true}

// directCalls counts the calls served on the direct path (tests read it).
var directCalls atomic.Int64

// direct is the direct path of one stdio connection.
type direct struct {
	f  *Facade
	ss atomic.Pointer[sdk.ServerSession] // the session, once found
	w  *workers                          // where calls run (fastcall_worker.go)

	mu      sync.Mutex
	running map[jsonrpc.ID]context.CancelCauseFunc
	closed  error // set when the connection ended: nothing new starts
	wg      sync.WaitGroup
}

func newDirect(f *Facade) *direct {
	return &direct{f: f, w: newWorkers(), running: make(map[jsonrpc.ID]context.CancelCauseFunc)}
}

// session is the facade's one stdio session, or nil before it exists.
func (d *direct) session() *sdk.ServerSession {
	if ss := d.ss.Load(); ss != nil {
		return ss
	}
	return d.findSession()
}

// findSession is session before the session is known: apart, so that
// the iterator's state is not allocated on every call that finds it
// known.
func (d *direct) findSession() *sdk.ServerSession {
	for ss := range d.f.srv.Sessions() {
		d.ss.Store(ss)
		return ss
	}
	return nil
}

// take serves msg on the direct path when it is a plain call, reporting
// whether it did; a cancellation it reads is acted on and not taken.
func (d *direct) take(ctx context.Context, c *stdioConn, msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return false
	}
	if !req.IsCall() {
		if req.Method == "notifications/cancelled" {
			d.cancelled(req.Params)
		}
		return false
	}
	if req.Method != "tools/call" {
		return false
	}
	name, args, ok := plainToolCall(req.Params)
	if !ok || !directTools[name] {
		return false
	}
	h := d.f.direct[name]
	ss := d.session()
	if h == nil || ss == nil || !plainSession(ss) {
		return false
	}
	cctx, cancel := context.WithCancelCause(ctx)
	d.mu.Lock()
	if d.closed != nil || d.running[req.ID] != nil {
		d.mu.Unlock()
		cancel(nil)
		return false
	}
	d.running[req.ID] = cancel
	d.wg.Add(1)
	d.mu.Unlock()
	directCalls.Add(1)
	call := &sdk.CallToolRequest{Session: ss, Params: &sdk.CallToolParamsRaw{Name: name, Arguments: args}}
	d.w.start(func() { d.serve(cctx, c, req.ID, h, call) })
	return true
}

// serve runs one direct call and writes its answer as the SDK would:
// callTool's empty content made [], the result encoded by the SDK's
// encoder settings, then the response frame by the SDK's encoder.
func (d *direct) serve(ctx context.Context, c *stdioConn, id jsonrpc.ID, h sdk.ToolHandler, call *sdk.CallToolRequest) {
	defer d.wg.Done()
	res, err := h(ctx, call)
	d.mu.Lock()
	cancel := d.running[id]
	delete(d.running, id)
	d.mu.Unlock()
	if err == nil && res.Content == nil {
		res2 := *res
		res2.Content = []sdk.Content{} // as the SDK's callTool: not null
		res = &res2
	}
	frame, ferr := answerFrame(id, res, err)
	if ferr != nil {
		frame, _ = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: proto.CodeInternalError, Message: "marshaling the result: " + ferr.Error()}})
	}
	// The SDK writes an answer whatever became of the request's context.
	_ = c.writeFrame(id, frame)
	if cancel != nil {
		cancel(nil)
	}
}

// cancelled cancels the direct call a notifications/cancelled names.
func (d *direct) cancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	d.mu.Lock()
	cancel := d.running[id]
	d.mu.Unlock()
	if cancel != nil {
		cancel(context.Canceled)
	}
}

// end cancels every direct call still running, with cause, and takes no
// more: the input ended or the connection closed.
func (d *direct) end(cause error) {
	if cause == nil {
		cause = io.EOF
	}
	d.mu.Lock()
	if d.closed == nil {
		d.closed = cause
	}
	for _, cancel := range d.running {
		cancel(cause)
	}
	d.mu.Unlock()
	d.w.stop()
}

// wait waits for the direct calls still running to answer.
func (d *direct) wait() { d.wg.Wait() }

// plainSession reports whether calls on ss are served by the SDK with
// nothing around the tool's handler but callTool: initialized, a
// revision before multi round-trip results, no tasks extension.
func plainSession(ss *sdk.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion < "2026-07-28" && !declaresTasks(ss, nil)
}

// plainToolCall reads a tools/call's params when they are exactly
// {"name": string, "arguments": object}, both names and the tool's name
// written without escapes, each once; ok is false for anything else.
func plainToolCall(params []byte) (name string, args json.RawMessage, ok bool) {
	f := proto.ScanFrame(params)
	if !f.Valid || f.First != '{' {
		return "", nil, false
	}
	var rawName, rawArgs []byte
	for key, val := range f.Members() {
		switch string(key) {
		case `"name"`:
			if rawName != nil {
				return "", nil, false
			}
			rawName = val
		case `"arguments"`:
			if rawArgs != nil {
				return "", nil, false
			}
			rawArgs = val
		default:
			return "", nil, false
		}
	}
	if !plainString(rawName) || len(rawArgs) == 0 || rawArgs[0] != '{' {
		return "", nil, false
	}
	return string(rawName[1 : len(rawName)-1]), bytes.Clone(rawArgs), true
}

// answerFrame is the response frame the SDK's jsonrpc2 writes for a
// call's result or error: a result is encoded once, by encoding/json
// without HTML escaping (the SDK's encoder), straight into the frame
// around it, where the SDK encodes it, then encodes the envelope around
// that and compacts it again; the bytes are the same
// (TestE2EDirectMatchesSDK). An error goes through the SDK's encoder.
//
// A result of the shape the facade's tools give is written by
// fastAnswerFrame instead, to the same bytes (fastanswer.go).
func answerFrame(id jsonrpc.ID, res *sdk.CallToolResult, err error) ([]byte, error) {
	if err == nil {
		if frame, ok := fastAnswerFrame(id, res); ok {
			return frame, nil
		}
	}
	return genericAnswerFrame(id, res, err)
}

// genericAnswerFrame is answerFrame by encoding/json, for any result.
func genericAnswerFrame(id jsonrpc.ID, res *sdk.CallToolResult, err error) ([]byte, error) {
	if err != nil {
		return jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: err})
	}
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	switch v := id.Raw().(type) {
	case int64:
		buf.WriteString(strconv.FormatInt(v, 10))
	case string:
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1) // the encoder's newline
	default: // not reached: the gate passes calls with these ids only
		return nil, fmt.Errorf("request id %v", v)
	}
	buf.WriteString(`,"result":`)
	if err := enc.Encode(res); err != nil {
		return nil, err
	}
	buf.Truncate(buf.Len() - 1)
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
