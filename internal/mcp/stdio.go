package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdio is the facade's MCP transport: newline-delimited JSON-RPC on
// stdin and stdout, as the SDK's IOTransport, with the gate in front.
// Where IOTransport is the gate's output piped into a reader goroutine of
// the SDK's that decodes each line again (through a decoder allocating a
// 32 KiB buffer per frame, twice for a request), the gate's own goroutine
// hands each frame it passed to the SDK's read loop already decoded, most
// from the scan it has made anyway (decodeFrame).
type stdio struct {
	g  *gate
	in io.ReadCloser
	d  *direct // the direct path (fastcall.go), set by Facade.Run
}

// Connect starts reading stdin.
func (t *stdio) Connect(ctx context.Context) (sdk.Connection, error) {
	c := &stdioConn{g: t.g, in: t.in, d: t.d, incoming: make(chan msgOrErr), closed: make(chan struct{})}
	go c.readLoop(ctx)
	return c, nil
}

type msgOrErr struct {
	msg jsonrpc.Message
	err error
}

// stdioConn is one stdio connection (sdk.Connection).
type stdioConn struct {
	g        *gate
	in       io.ReadCloser
	d        *direct // nil: every frame goes to the SDK
	incoming chan msgOrErr
	closed   chan struct{}
	once     sync.Once
	closeErr error
}

// readLoop reads, screens and decodes stdin's frames until it ends or
// the connection is closed, serving a plain call on the direct path and
// handing the SDK every other frame. Like the SDK's reader it may stay
// blocked on a stdin that Close cannot interrupt; Read does not wait for
// it. Direct calls are served in ctx.
func (c *stdioConn) readLoop(ctx context.Context) {
	send := func(m msgOrErr) bool {
		select {
		case c.incoming <- m:
			return true
		case <-c.closed:
			return false
		}
	}
	err := c.g.frames(c.in, func(t []byte, sc *scanned) bool {
		msg, err := decodeFrame(t, sc)
		if err == nil && c.d != nil && c.d.take(ctx, c, msg) {
			return true
		}
		return send(msgOrErr{msg, err}) && err == nil
	})
	if c.d != nil {
		c.d.end(err)
	}
	if err != nil {
		send(msgOrErr{err: err})
	}
}

// Read returns the next message.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m.msg, m.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes one message as a line, releasing the in-flight charge of
// the request it answers.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %v", err)
	}
	var id jsonrpc.ID
	if r, ok := msg.(*jsonrpc.Response); ok {
		id = r.ID
	}
	return c.writeFrame(id, data)
}

// writeFrame writes one encoded message as a line; id, when valid, is
// the request it answers, whose in-flight charge it releases.
func (c *stdioConn) writeFrame(id jsonrpc.ID, data []byte) error {
	if id.IsValid() {
		c.g.releaseID(id)
	}
	_, err := c.g.out.Write(append(data, '\n'))
	return err
}

// Close closes stdin and stdout; a Read waiting returns io.EOF.
func (c *stdioConn) Close() error {
	c.once.Do(func() {
		if c.d != nil {
			c.d.end(io.EOF)
		}
		close(c.closed)
		ierr := c.in.Close()
		c.closeErr = c.g.out.Close()
		if c.closeErr == nil {
			c.closeErr = ierr
		}
	})
	return c.closeErr
}

// SessionID is empty: stdio has no sessions.
func (c *stdioConn) SessionID() string { return "" }

// decodeFrame decodes a frame the gate passed (valid JSON, one object,
// no duplicate envelope member, "jsonrpc" "2.0", a usable id) into the
// message jsonrpc.DecodeMessage gives for it. A request whose envelope is
// plain (no escapes in its member names, method or string id, params an
// object or an array or absent) is built from the gate's scan; anything
// else is left to jsonrpc.DecodeMessage. The message does not alias t.
func decodeFrame(t []byte, sc *scanned) (jsonrpc.Message, error) {
	method, params := sc.members[envMethod], sc.members[envParams]
	if method == nil || sc.escapedName || !plainString(method) ||
		params != nil && params[0] != '{' && params[0] != '[' {
		return jsonrpc.DecodeMessage(bytes.Clone(t))
	}
	var id jsonrpc.ID
	if raw := sc.members[envID]; raw != nil && string(raw) != "null" {
		var v any
		if raw[0] == '"' {
			if !plainString(raw) {
				return jsonrpc.DecodeMessage(bytes.Clone(t))
			}
			v = string(raw[1 : len(raw)-1])
		} else {
			f, err := strconv.ParseFloat(string(raw), 64)
			if err != nil {
				return jsonrpc.DecodeMessage(bytes.Clone(t))
			}
			v = f
		}
		var err error
		if id, err = jsonrpc.MakeID(v); err != nil {
			return nil, err
		}
	}
	req := &jsonrpc.Request{ID: id, Method: string(method[1 : len(method)-1])}
	if params != nil {
		req.Params = bytes.Clone(params)
	}
	return req, nil
}

// plainString reports whether raw, a JSON string, holds valid UTF-8 and
// no escape: its text is then the bytes between its quotes.
func plainString(raw []byte) bool {
	return len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)
}
