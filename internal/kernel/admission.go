package kernel

import (
	"container/list"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"time"

	membudget "github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/rawio"
	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// Connection admission: how many connections the kernel serves, and the
// memory their frames may hold. The bounds are fields of Limits:
// MaxConns, MaxPreAttachConns and MaxPrincipalConns bound connections;
// FrameMemory and OutboxMemory are pools (internal/budget) that every
// connection's read buffer and outbound queue charge; FrameTimeout bounds
// how long one request frame may take to arrive.

// Budget names, as errors and docs name them (the Limits fields, as the
// session bounds are named).
const (
	budgetFrameMemory  = "frame_memory"
	budgetOutboxMemory = "outbox_memory"
)

const (
	// refuseWriteTimeout bounds the write of the error a refused
	// connection is sent before it is closed.
	refuseWriteTimeout = 100 * time.Millisecond
	// acceptBackoff is how long the accept loop waits when the process is
	// out of file descriptors, so that closing connections can free some.
	acceptBackoff = 50 * time.Millisecond
)

// admission tracks the connections for the bounds. Guarded by Server.mu.
type admission struct {
	waiting   list.List      // of *conn not yet attached, oldest first
	live      int            // tracked connections not evicted
	principal map[string]int // attached connections per token principal
}

// connLimitError is the typed error of a connection closed or refused by a
// connection bound.
func connLimitError(budget string, limit int, msg string) *proto.RPCError {
	return quotaDenied(msg, budget, int64(limit))
}

// admitLocked decides whether c may be served, evicting the oldest
// connection not yet attached when a bound is reached. It returns the
// refusal to send when c may not be served. The caller holds s.mu.
func (s *Server) admitLocked(c *conn) *proto.RPCError {
	a := &s.adm
	lim := s.limits
	full := func() *proto.RPCError {
		return connLimitError("max_conns", lim.MaxConns, fmt.Sprintf("connection refused: the kernel serves at most %d connections (max_conns, --max-conns)", lim.MaxConns))
	}
	// Evicted connections still draining count against a hard ceiling,
	// so churn cannot pile them up.
	if len(s.conns) >= lim.MaxConns+lim.MaxPreAttachConns {
		return full()
	}
	if a.live >= lim.MaxConns || a.waiting.Len() >= lim.MaxPreAttachConns {
		if !s.evictOldestWaitingLocked() {
			return full()
		}
	}
	c.waitElem = a.waiting.PushBack(c)
	a.live++
	return nil
}

// evictOldestWaitingLocked ends the oldest connection not yet attached;
// false when there is none. The caller holds s.mu.
func (s *Server) evictOldestWaitingLocked() bool {
	e := s.adm.waiting.Front()
	if e == nil {
		return false
	}
	victim := e.Value.(*conn)
	s.adm.waiting.Remove(e)
	victim.waitElem = nil
	victim.evicted = true
	s.adm.live--
	lim := s.limits.MaxPreAttachConns
	go victim.endWith(connLimitError("max_preattach_conns", lim,
		fmt.Sprintf("connection closed: at most %d connections may wait unattached (max_preattach_conns, --max-preattach-conns); the oldest is closed to admit another", lim)))
	return true
}

// releaseLocked forgets c's admission when it closes. The caller holds
// s.mu.
func (s *Server) releaseLocked(c *conn) {
	a := &s.adm
	if c.waitElem != nil {
		a.waiting.Remove(c.waitElem)
		c.waitElem = nil
	}
	if !c.evicted {
		a.live--
		c.evicted = true
	}
	if c.boundTo != "" {
		if a.principal[c.boundTo]--; a.principal[c.boundTo] <= 0 {
			delete(a.principal, c.boundTo)
		}
		c.boundTo = ""
	}
}

// bindPrincipal counts c as attached as principal, refusing a token
// principal already holding MaxPrincipalConns connections. The kernel
// owner is never refused. Re-attaching as the same principal is free.
func (s *Server) bindPrincipal(c *conn, principal string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &s.adm
	counted := principal
	if principal == s.local {
		counted = "" // the owner is not counted
	}
	if lim := s.limits.MaxPrincipalConns; counted != "" && counted != c.boundTo && a.principal[counted] >= lim {
		return connLimitError("max_principal_conns", lim,
			fmt.Sprintf("attach refused: principal %s already has %d attached connections (max_principal_conns, --max-principal-conns)", principal, lim))
	}
	if c.waitElem != nil {
		a.waiting.Remove(c.waitElem)
		c.waitElem = nil
	}
	if c.boundTo != "" {
		if a.principal[c.boundTo]--; a.principal[c.boundTo] <= 0 {
			delete(a.principal, c.boundTo)
		}
	}
	if counted != "" {
		a.principal[counted]++
	}
	c.boundTo = counted
	return nil
}

// refuse answers a connection that will not be served with err and
// closes it, without waiting on a peer that does not read.
func refuse(nc net.Conn, err *proto.RPCError) {
	if frame, e := proto.EncodeFrame(proto.NewErrorResponse(nil, err)); e == nil {
		nc.SetWriteDeadline(time.Now().Add(refuseWriteTimeout))
		nc.Write(frame)
	}
	nc.Close()
}

// outOfFiles reports an accept error that more file descriptors would
// cure: the loop should wait rather than stop serving.
func outOfFiles(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}

// readGuard is the connection as its frame reader sees it: the reader may
// set and clear read deadlines (the frame timeout) until stop, after which
// the deadline stays in the past so the reader returns at once.
type readGuard struct {
	nc      *net.UnixConn
	raw     *rawio.RW         // nc for raw reads (rawconn.go); nil: through nc
	peek    *rawio.PeekReader // raw reads that leave the bytes until the next wait (peekread.go); nil: raw
	mu      sync.Mutex
	stopped bool
}

func (g *readGuard) Read(p []byte) (int, error) {
	if g.peek != nil {
		return g.peek.Read(p)
	}
	if g.raw != nil {
		return g.raw.Read(p)
	}
	return g.nc.Read(p)
}

func (g *readGuard) SetReadDeadline(t time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return nil
	}
	return g.nc.SetReadDeadline(t)
}

// stop makes the reader's current and later reads fail with a timeout.
func (g *readGuard) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = true
	g.nc.SetReadDeadline(time.Now())
}

// newQuotas gives c its accounts in the kernel's frame budgets. A
// connection evicted from the read budget is told why and closed; one
// evicted from the outbound budget cannot be told (its queue is what is
// full) and is closed.
func (s *Server) newQuotas(c *conn) {
	c.readQuota = s.readPool.Holder(func() {
		s.log.Warn("closing connection: it held the largest partial frame when the frame memory budget filled")
		c.endWith(s.evictedFrameError())
	})
	c.outQuota = s.outPool.Holder(func() {
		s.log.Warn("closing connection: it held the most queued frames when the outbound budget filled")
		c.cancel()
		c.closeWith(false)
	})
}

// evictedFrameError is what a connection evicted from the read budget is
// told.
func (s *Server) evictedFrameError() *proto.RPCError {
	return s.frameMemoryError(" and this connection held the most")
}

// frameMemoryError is a frame refused because the read budget is full;
// why says more.
func (s *Server) frameMemoryError(why string) *proto.RPCError {
	return proto.NewError(proto.CodeInvalidRequest,
		fmt.Sprintf("frame refused: the %s budget (%d bytes, all connections; --frame-memory) is full%s", budgetFrameMemory, s.limits.FrameMemory, why),
		quotaData(budgetFrameMemory, s.limits.FrameMemory))
}

// frameError turns the frame reader's failure into the typed error the
// peer is sent before the connection closes; nil when the peer is simply
// gone.
func (c *conn) frameError(err error) *proto.RPCError {
	lim := c.srv.limits
	switch {
	case errors.Is(err, proto.ErrFrameTooLong):
		return proto.NewError(proto.CodeInvalidRequest,
			fmt.Sprintf("frame refused: a line may hold at most %d bytes", proto.MaxFrame),
			boundData(value.CodeTooLarge, "max_frame", proto.MaxFrame))
	case errors.Is(err, membudget.ErrEvicted):
		// Evicted while growing, before the eviction's own stop landed.
		return c.srv.evictedFrameError()
	case errors.Is(err, membudget.ErrExceeded):
		return c.srv.frameMemoryError("")
	case errors.Is(err, proto.ErrFrameTimeout):
		return proto.NewError(proto.CodeInvalidRequest,
			fmt.Sprintf("frame refused: a frame must arrive within %v of its first byte (frame_timeout, --frame-timeout)", lim.FrameTimeout),
			boundData(value.CodeTimeout, "frame_timeout", lim.FrameTimeout.Milliseconds()))
	}
	return nil
}
