package kernel

import (
	"context"
	"fmt"

	"github.com/shoalgo/shoal/internal/syntax"
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
	free chan *syntax.Parser // the idle slots
}

func newSourceWork(n int) *sourceWork {
	w := &sourceWork{free: make(chan *syntax.Parser, max(n, 1))}
	for range cap(w.free) {
		w.free <- new(syntax.Parser)
	}
	return w
}

// tryTake takes a free slot's parser, or returns nil when none is free.
func (w *sourceWork) tryTake() *syntax.Parser {
	select {
	case ps := <-w.free:
		return ps
	default:
		return nil
	}
}

// take waits for a free slot's parser; it gives up when ctx is done (the
// request's connection or the server is going away).
func (w *sourceWork) take(ctx context.Context) (*syntax.Parser, error) {
	select {
	case ps := <-w.free:
		return ps, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("source work: %w", ctx.Err())
	}
}

// give returns a slot, ending the life of its parser's last tree.
func (w *sourceWork) give(ps *syntax.Parser) {
	ps.Reset()
	w.free <- ps
}

// withSource runs fn with a source slot's parser: the one the call holds
// when it runs on the reader, else one it waits for. The parser's last
// tree ends when fn returns, so fn's result must not refer to it.
func (c *call) withSource(ctx context.Context, fn func(ps *syntax.Parser)) error {
	if c.ps != nil {
		fn(c.ps)
		return nil
	}
	w := c.conn.srv.source
	ps, err := w.take(ctx)
	if err != nil {
		return err
	}
	defer w.give(ps)
	fn(ps)
	return nil
}
