package kernel

import (
	"context"
	"fmt"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/proto"
)

// sourceWork bounds the CPU-bound work on a request's source (parsing it
// and writing its tree as JSON, for parse and explain): at most n sources
// are worked on at once, kernel-wide, whoever sends them, since each holds
// a tree of up to syntax.MaxNodes nodes and an answer of up to
// proto.MaxFrame bytes. Each of the n slots owns a keeping syntax.Parser:
// the methods that read a tree and drop it reuse its node memory, so they
// leave nothing for the garbage collector and find that memory warm. (exec
// parses with syntax.Parse, since closures it defines keep their nodes for
// the life of the session.)
//
// A request takes a slot on the connection's reader when one is free and
// is worked on there, answer included (see conn.dispatch): no goroutine is
// started or woken for it, and on a machine where waking a thread costs
// tens of microseconds those hand-offs were a third of a parse answer's
// time. When every slot is busy the request waits for one on a goroutine
// of its own, so the reader goes on reading.
type sourceWork struct {
	free chan *sourceSlot // the idle slots
}

// sourceSlot is one source being worked on: its parser, and a buffer the
// source is decoded into when the request runs on the reader (the source
// lives exactly as long as the slot is held).
type sourceSlot struct {
	ps  *syntax.Parser
	src []byte
}

// maxKeptSource is the largest decoded-source buffer a slot keeps for the
// next request; a larger one is left to the garbage collector.
const maxKeptSource = 1 << 20

func newSourceWork(n int) *sourceWork {
	w := &sourceWork{free: make(chan *sourceSlot, max(n, 1))}
	for range cap(w.free) {
		w.free <- &sourceSlot{ps: new(syntax.Parser)}
	}
	return w
}

// tryTake takes a free slot, or returns nil when none is free.
func (w *sourceWork) tryTake() *sourceSlot {
	select {
	case sl := <-w.free:
		return sl
	default:
		return nil
	}
}

// take waits for a free slot; it gives up when ctx is done (the request's
// connection or the server is going away).
func (w *sourceWork) take(ctx context.Context) (*sourceSlot, error) {
	select {
	case sl := <-w.free:
		return sl, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("source work: %w", ctx.Err())
	}
}

// give returns a slot, ending the life of its parser's last tree and of
// the source decoded into it.
func (w *sourceWork) give(sl *sourceSlot) {
	sl.ps.Reset()
	if cap(sl.src) > maxKeptSource {
		sl.src = nil
	}
	w.free <- sl
}

// withSource runs fn with a source slot's parser: the one the call holds
// when it runs on the reader, else one it waits for. The parser's last
// tree ends when fn returns, so fn's result must not refer to it.
func (c *call) withSource(ctx context.Context, fn func(ps *syntax.Parser)) error {
	if c.slot != nil {
		fn(c.slot.ps)
		return nil
	}
	w := c.conn.srv.source
	sl, err := w.take(ctx)
	if err != nil {
		return err
	}
	defer w.give(sl)
	fn(sl.ps)
	return nil
}

// sourceParam reads the string member key of the request's params (a
// source) without encoding/json when it can (proto.StringParam). On the
// reader, holding a slot, the source is decoded into the slot's buffer:
// it is used only until the slot is given back (conn.handle, once the
// answer is built), so nothing that outlives the handler may refer to it
// (parseError copies its texts).
func (c *call) sourceParam(key string) (string, bool) {
	if c.slot == nil {
		return proto.StringParam(c.req.Params, key)
	}
	s, buf, ok := proto.StringParamInto(c.req.Params, key, c.slot.src)
	c.slot.src = buf
	return s, ok
}
