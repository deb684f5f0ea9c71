package kernel

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	membudget "github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/internal/rawio"
	"github.com/shoalgo/shoal/proto"
)

// conn is one client connection: a single reader that decodes frames and
// dispatches requests, a bounded outbound queue drained by its own writer,
// and at most MaxInflightPerConn handlers running at once. A request runs
// on the goroutine that read it, which hands the reading over when the
// request takes long or more input waits (lead.go). Answers pass through
// the reply window (flow.go): while the peer leaves them unread, requests
// wait and the reader stops reading.
type conn struct {
	srv *Server
	nc  *net.UnixConn
	rg  *readGuard // nc as the frame reader sees it
	// quiet is nc's registration in the runtime's poller, without room to
	// write from the connection's quietAfter-th request (quietwrites.go);
	// nil: as the runtime made it. requests counts requests up to then.
	quiet    *rawio.QuietWrites
	requests atomic.Int32
	fr       *proto.Reader // the frame reader; used by whichever goroutine reads (lead.go)
	out      *proto.Outbox
	win      replyWindow

	// wrote and wrotePooled are the release functions of answers, made
	// once: they give the answer's room back to the window (and a pooled
	// buffer back to its pool).
	wrote, wrotePooled func([]byte)

	readQuota *membudget.Holder // the read buffer's share of FrameMemory
	outQuota  *membudget.Holder // the outbox's share of OutboxMemory
	endReason atomic.Pointer[proto.RPCError]

	// Admission state, guarded by srv.mu (admission.go).
	waitElem *list.Element // in srv.adm.waiting while not attached
	evicted  bool          // no longer counted as live
	boundTo  string        // token principal counted for this connection

	ctx    context.Context // cancelled when the connection's work must stop
	cancel context.CancelFunc
	sem    chan struct{}
	work   sync.WaitGroup
	// Reading passes between goroutines (lead.go): leadGen is odd while
	// the reading goroutine runs a request and nobody reads; handTimer
	// hands the reading over when that request takes HandoffDelay; idle
	// wakes the connection's idle follower, if one waits (at most one
	// does: idleFollower); readEnd carries the last reader's flush to
	// serve.
	leadGen      atomic.Uint64
	leadSince    atomic.Int64    // monoNow when the current leader's request started
	handTimer    *time.Timer     // armed while handDue is not 0 (handtimer.go)
	handMu       sync.Mutex      // orders the timer's Resets with handDue
	handDue      atomic.Int64    // monoNow when the armed timer is due; 0: disarmed
	handPrecise  atomic.Uint64   // leadGen of the request that wants the timer HandoffDelay from its start
	leadHooks    *eval.LeadHooks // leadCheck and leadWait, made once: an exec's evaluation's hooks (lead.go)
	idle         chan struct{}
	idleFollower atomic.Bool
	readEnd      chan bool
	evMu         sync.Mutex // orders event sends against the outbox share

	// Guarded by evMu: the outbox's progress while events wait.
	evWritten uint64
	evSince   time.Time

	mu   sync.Mutex
	att  *attachment        // nil until session.attach succeeds
	subs *events.Subscriber // event subscriptions; nil until the first
	// held are the sessions the connection holds open: the one it is
	// attached to, and (true) each it has subscribed in, until it closes.
	held map[*session]bool
	// detached is set when the attachment was cut (revoke.go): every
	// request but session.attach answers AUTH_FAILED until a new attach.
	detached *tokenCut

	closeOnce sync.Once
}

func newConn(s *Server, nc *net.UnixConn) *conn {
	raw := rawSocket(nc)
	c := &conn{
		srv:     s,
		nc:      nc,
		quiet:   quietWrites(nc),
		rg:      newReadGuard(nc, raw),
		sem:     make(chan struct{}, MaxInflightPerConn),
		idle:    make(chan struct{}),
		readEnd: make(chan bool, 1),
	}
	c.handTimer = time.AfterFunc(time.Hour, c.handCheck)
	c.leadHooks = &eval.LeadHooks{Compute: c.leadCheck, Wait: c.leadWait}
	c.handTimer.Stop()
	c.ctx, c.cancel = context.WithCancel(s.ctx)
	c.wrote = func(b []byte) { c.win.written(frameCost(b)) }
	c.wrotePooled = func(b []byte) {
		c.win.written(frameCost(b))
		releaseFrame(b)
	}
	s.newQuotas(c)
	c.out = proto.NewOutbox(newSocketWriter(nc, raw, c.quiet), OutboxFrames,
		proto.OutboxCharge(c.outQuota), proto.OutboxFrameCost(OutboxFrameCost))
	return c
}

// discard gives back what newConn took for a connection that will not be
// served.
func (c *conn) discard() {
	c.handTimer.Stop()
	c.cancel()
	c.out.Close()
	c.readQuota.Release()
	c.outQuota.Release()
}

// attachment returns the connection's current attachment, or nil.
func (c *conn) attachment() *attachment {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.att
}

// attach makes a the connection's attachment. a.sess comes held once for
// the connection (registry.get); the connection keeps one hold per
// session, and lets go of the session it leaves unless it subscribed there.
func (c *conn) attach(a *attachment) {
	var drop []*session
	c.mu.Lock()
	old := c.att
	c.att, c.detached = a, nil
	if c.held == nil {
		c.held = map[*session]bool{}
	}
	if _, ok := c.held[a.sess]; ok {
		drop = append(drop, a.sess)
	} else {
		c.held[a.sess] = false
	}
	if old != nil && old.sess != a.sess && !c.held[old.sess] {
		delete(c.held, old.sess)
		drop = append(drop, old.sess)
	}
	c.mu.Unlock()
	for _, s := range drop {
		s.release()
	}
}

// subscribedIn keeps a's session held for as long as the connection lives,
// since it now has a subscription there; it reports false when a is no
// longer the connection's attachment (it was cut meanwhile).
func (c *conn) subscribedIn(a *attachment) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.att != a || c.held == nil {
		return false
	}
	c.held[a.sess] = true
	return true
}

// releaseSessions gives back every session hold of a closing connection.
func (c *conn) releaseSessions() {
	c.mu.Lock()
	held := c.held
	c.held = nil
	c.mu.Unlock()
	for s := range held {
		s.release()
	}
}

// stopReading makes the reader return promptly (used by Shutdown).
func (c *conn) stopReading() { c.rg.stop() }

// endWith stops the reader; the connection answers err (with a null id)
// and closes. The first reason given wins.
func (c *conn) endWith(err *proto.RPCError) {
	c.endReason.CompareAndSwap(nil, err)
	c.rg.stop()
}

// serve has the connection read (on goroutines of lead.go) until the peer
// stops sending, sends garbage, or the server shuts down; then it lets
// in-flight requests finish (for at most DrainGrace), flushes the queue
// and closes the socket.
func (c *conn) serve() {
	c.fr = proto.NewReader(c.rg, proto.MaxFrame)
	c.fr.SetCharge(c.readQuota)
	c.fr.SetFrameTimeout(c.rg, c.srv.limits.FrameTimeout)
	// Reading runs on goroutines of its own (lead.go): one may be held
	// up by a request it leads after another read on to the end.
	go c.follow()
	flush := <-c.readEnd
	c.rg.releasePeeked()
	c.handTimer.Stop()
	c.fr.Release()
	done := make(chan struct{})
	go func() {
		c.work.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(DrainGrace):
		c.cancel()
		<-done
	}
	c.cancel()
	c.closeSubscriptions()
	c.releaseSessions()
	c.closeWith(flush)
	c.readQuota.Release()
	c.outQuota.Release()
}

// closeWith closes the connection, first waiting (bounded) for queued
// frames to be written when flush is set.
func (c *conn) closeWith(flush bool) {
	c.closeOnce.Do(func() {
		c.out.Close()
		if flush {
			select {
			case <-c.out.Done():
			case <-time.After(FlushTimeout):
			}
		}
		c.nc.Close()
	})
}

// readLoop reads and dispatches frames on the calling goroutine while it
// holds the reading. It returns ended when reading is over, with whether
// queued answers should still be flushed when the connection closes, and
// !ended when another goroutine took the reading over while this one ran
// a request (lead.go).
func (c *conn) readLoop() (flush, ended bool) {
	r := c.fr
	for {
		frame, err := r.ReadFrame()
		if err != nil {
			reason := c.endReason.Load()
			if reason == nil && !c.srv.isClosing() {
				reason = c.frameError(err)
			}
			if reason != nil {
				c.srv.log.Warn("closing connection", "reason", reason.Message)
				c.send(proto.NewErrorResponse(nil, reason))
				return true, true
			}
			switch {
			case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), errors.Is(err, context.Canceled):
			default:
				var ne net.Error
				if !errors.As(err, &ne) || !ne.Timeout() {
					c.srv.log.Debug("connection read failed", "err", err)
				}
			}
			return true, true
		}
		req, rerr := proto.DecodeRequestInFrame(frame) // dispatch copies what outlives the frame
		if rerr != nil {
			if rerr.Code == proto.CodeRPCParseError {
				c.send(proto.NewErrorResponse(nil, rerr))
				return true, true
			}
			// An answer like any other, flow controlled, with the id
			// echoed when there was one (null when not).
			if frame := c.encode(proto.NewErrorResponse(req.ID, rerr)); frame != nil {
				c.answer(frame, false)
			}
			continue
		}
		if !c.dispatch(req) {
			return false, false
		}
	}
}

// encode encodes msg as a frame; a response that cannot be encoded
// becomes an INTERNAL_ERROR response. It returns nil when nothing can be
// sent.
func (c *conn) encode(msg any) []byte {
	frame, err := proto.EncodeFrame(msg)
	if err != nil {
		resp, ok := msg.(*proto.Response)
		if !ok {
			c.srv.log.Error("dropping unencodable frame", "err", err)
			return nil
		}
		frame, err = proto.EncodeFrame(proto.NewErrorResponse(resp.ID,
			proto.NewError(proto.CodeInternalError, "internal error: result could not be encoded: "+err.Error(), nil)))
		if err != nil {
			c.srv.log.Error("dropping unencodable frame", "err", err)
			return nil
		}
	}
	return frame
}

// send queues a frame that answers no request (a notification, the last
// word of a closing connection) without waiting: it is not flow
// controlled, and a full queue closes the connection.
func (c *conn) send(msg any) {
	if frame := c.encode(msg); frame != nil {
		c.push(frame)
	}
}

// push hands frame to the outbox without waiting. A full queue means the
// peer is not reading: the connection is closed rather than let it hold
// memory.
func (c *conn) push(frame []byte) {
	if err := c.out.Send(frame); err != nil {
		c.outboxFailed(err)
	}
}

// outboxFailed closes the connection after the outbox refused a frame.
func (c *conn) outboxFailed(err error) {
	if errors.Is(err, proto.ErrOutboxFull) {
		c.srv.log.Warn("closing connection: peer is not reading", "err", err)
	}
	c.cancel()
	c.closeWith(false)
}

// answer queues the response frame of a request, flow controlled: it
// waits for room in the reply window, so a peer that does not read its
// answers holds up its own requests (and, once every running slot waits,
// its reader) rather than being disconnected. A pooled frame's buffer
// goes back to its pool once written or dropped. The connection is closed
// when the peer reads no answer for the outbox stall, or when the
// kernel-wide outbound budget refuses the answer while the connection has
// no other answer queued to wait for.
func (c *conn) answer(frame []byte, pooled bool) {
	n := frameCost(frame)
	release := c.wrote
	if pooled {
		release = c.wrotePooled
	}
	stall := c.srv.cfg.EventStall
	drop := func() {
		if pooled {
			releaseFrame(frame)
		}
	}
	for {
		if err := c.win.take(c.ctx, n, stall); err != nil {
			drop()
			if errors.Is(err, errStalled) {
				c.srv.log.Warn("closing connection: peer read no answer", "stall", stall)
				c.cancel()
				c.closeWith(false)
			}
			return
		}
		var err error
		if pooled {
			// Built by buildAnswer, whose writers escape every control
			// character: checked at its end (Outbox.SendEncoded).
			err = c.out.SendEncoded(frame, release)
		} else {
			err = c.out.SendOwned(frame, release)
		}
		if err == nil {
			return
		}
		c.win.unused(n)
		if errors.Is(err, proto.ErrOutboxFull) {
			// The queue or the kernel-wide budget has no room: wait for
			// one of this connection's own answers to be written.
			waited, werr := c.win.waitWritten(c.ctx, stall)
			if waited && werr == nil {
				continue
			}
			if errors.Is(werr, context.Canceled) {
				drop()
				return
			}
		}
		drop()
		c.outboxFailed(err)
		return
	}
}

// reply answers req unless it is a notification.
func (c *conn) reply(req *proto.Request, result any, err error) {
	if req.IsNotification() {
		if f, ok := result.(answerFrame); ok {
			releaseFrame(f)
		}
		return
	}
	if err != nil {
		if frame := c.encode(proto.NewErrorResponse(req.ID, toRPCError(err))); frame != nil {
			c.answer(frame, false)
		}
		return
	}
	if f, ok := result.(answerFrame); ok {
		c.answer(f, true)
		return
	}
	if frame := c.encode(proto.NewResponse(req.ID, result)); frame != nil {
		c.answer(frame, false)
	}
}

// toRPCError maps a handler error to its wire form: an *proto.RPCError is
// kept, anything else is an internal error.
func toRPCError(err error) *proto.RPCError {
	var re *proto.RPCError
	if errors.As(err, &re) {
		return re
	}
	return proto.NewError(proto.CodeInternalError, "internal error: "+err.Error(), nil)
}

// dispatch routes one request through the method table. It reports
// whether the calling goroutine still holds the reading (see lead).
func (c *conn) dispatch(req *proto.Request) bool {
	if c.quiet != nil && c.requests.Load() < quietAfter && c.requests.Add(1) == quietAfter {
		c.quiet.Quiet()
	}
	m, ok := methods[req.Method]
	if !ok {
		c.reply(req, nil, proto.NewError(proto.CodeMethodNotFound, "method not found: "+req.Method, nil))
		return true
	}
	att := c.attachment()
	if att == nil && req.Method != proto.MethodSessionAttach {
		if err := c.detachedErr(); err != nil {
			c.reply(req, nil, err)
			return true
		}
	}
	if m.needsAttach && att == nil {
		c.reply(req, nil, proto.NewError(proto.CodeNotAttached, req.Method+" requires session.attach first", nil))
		return true
	}
	if m.handle == nil {
		c.reply(req, nil, proto.NewError(proto.CodeMethodNotFound, req.Method+" is not implemented by this kernel yet", nil))
		return true
	}
	// The request holds its session until it is answered, so the session
	// is not closed under it even if the connection attaches elsewhere.
	if att != nil && !att.sess.acquire() {
		c.reply(req, nil, proto.NewError(proto.CodeInternalError, "the session was closed", nil))
		return true
	}
	call := &call{conn: c, att: att, req: req}
	if m.source && m.prepare == nil {
		if sl := c.srv.source.tryTake(); sl != nil {
			// Answered here, before the next frame is read: the params
			// may go on aliasing the frame. The slot is given back by run
			// before the answer waits for room.
			call.slot = sl
			c.work.Add(1)
			defer c.work.Done()
			c.run(m, call)
			return true
		}
	}
	// Any other request may outlive the frame's bytes.
	req.OwnParams()
	if m.inline {
		c.run(m, call)
		return true
	}
	select {
	case c.sem <- struct{}{}:
	case <-c.ctx.Done():
		if att != nil {
			att.sess.release()
		}
		c.reply(req, nil, proto.NewError(proto.CodeInternalError, "connection closing", nil))
		return true
	}
	// The place in session order is reserved only once the call holds a
	// slot, so every reserved turn can run and none waits on a reader.
	if m.prepare != nil {
		m.prepare(call)
	}
	c.work.Add(1)
	return c.lead(m, call)
}

// runSlot runs one request that holds a running slot, and gives the slot
// back.
func (c *conn) runSlot(m *method, call *call) {
	call.slotted = true
	defer func() {
		if !call.elsewhere {
			c.releaseSlot()
		}
	}()
	c.run(m, call)
}

// releaseSlot gives back a running slot.
func (c *conn) releaseSlot() {
	<-c.sem
	c.work.Done()
}

// run calls the handler and answers, then lets go of the request's
// session hold. A panicking handler answers INTERNAL_ERROR instead of
// taking the kernel down. A request whose attachment was cut meanwhile
// answers AUTH_FAILED, whatever the handler returned. A handler whose
// call was answered by another goroutine (answeredElsewhere) leaves
// answer and holds to it.
func (c *conn) run(m *method, call *call) {
	ctx, stop := call.att.requestContext(c.ctx)
	call.stop = stop
	res, err := c.handle(ctx, m, call)
	if _, ok := res.(answeredElsewhere); ok {
		call.elsewhere = true
		return
	}
	c.finish(call, res, err)
}

// finish answers call with what its handler returned, then lets go of the
// request's context and session hold.
func (c *conn) finish(call *call, res any, err error) {
	defer func() {
		call.stop()
		if call.att != nil {
			call.att.sess.release()
		}
	}()
	if cerr := call.att.cutErr(); cerr != nil && call.req.Method != proto.MethodSessionAttach {
		res, err = nil, cerr
	}
	c.reply(call.req, res, err)
	answeredThenFlush(call)
}

// handle calls the handler, turning a panic into INTERNAL_ERROR, and
// gives back the source slot the call held on the reader: the answer is
// built by then, and waiting for room to queue it must not hold a slot
// other connections share.
func (c *conn) handle(ctx context.Context, m *method, call *call) (res any, err error) {
	defer func() {
		if call.slot != nil {
			c.srv.source.give(call.slot)
			call.slot = nil
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			c.srv.log.Error("handler panicked", "method", call.req.Method, "panic", p, "stack", string(debug.Stack()))
			if f, ok := res.(answerFrame); ok {
				releaseFrame(f)
			}
			res, err = nil, proto.NewError(proto.CodeInternalError, fmt.Sprintf("internal error in %s", call.req.Method), nil)
		}
	}()
	return m.handle(ctx, call)
}

// call is one request on its way through a handler.
type call struct {
	conn *conn
	att  *attachment // the attachment when the request was read
	req  *proto.Request
	turn *turn // session order, for methods with prepare
	// slot is the source slot a source method holds while it runs on the
	// reader; nil otherwise (withSource).
	slot *sourceSlot
	// stop ends the request's context (run); slotted is set when the call
	// holds a running slot (runSlot); elsewhere when another goroutine
	// answered it and gave its holds back (execawait.go).
	stop      func()
	slotted   bool
	elsewhere bool
}

// params decodes the request's params into dst; absent params decode as
// {}. Failure is INVALID_PARAMS.
func (c *call) params(dst any) error {
	raw := c.req.Params
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if raw[0] != '{' {
		return proto.NewError(proto.CodeInvalidParams, "invalid params: expected an object", nil)
	}
	var err error
	if u, ok := dst.(json.Unmarshaler); ok {
		// A proto params type that records which members were present:
		// decoded once (DecodeRequest checked the frame is JSON), not
		// scanned again by json.Unmarshal first.
		err = u.UnmarshalJSON(raw)
	} else {
		err = json.Unmarshal(raw, dst)
	}
	if err != nil {
		return proto.NewError(proto.CodeInvalidParams, "invalid params: "+err.Error(), nil)
	}
	return nil
}
