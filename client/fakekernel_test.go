package client

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// fakeKernel serves JSON lines on a temporary Unix socket with proto's
// framing. Each request is handled on its own goroutine by handle, which
// defaults to defaultHandle; the kernel records attach and subscribe
// params so tests can check what a reconnecting client sent.
type fakeKernel struct {
	t    testing.TB
	path string
	ln   net.Listener

	accepted chan *fakeConn
	wg       sync.WaitGroup

	mu         sync.Mutex
	handle     func(fc *fakeConn, req *proto.Request)
	conns      []*fakeConn
	attaches   []json.RawMessage
	subscribes []subCall
	replay     map[string][]Event // events.subscribe replays these (seq > since)
}

type subCall struct {
	conn    int
	channel string
	since   *uint64
}

type fakeConn struct {
	k     *fakeKernel
	index int
	nc    net.Conn
	w     *proto.Writer
}

func newFakeKernel(t testing.TB) *fakeKernel {
	t.Helper()
	dir, err := os.MkdirTemp("", "sc")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "k.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	k := &fakeKernel{t: t, path: path, ln: ln, accepted: make(chan *fakeConn, 64), replay: map[string][]Event{}}
	k.wg.Add(1)
	go k.acceptLoop()
	t.Cleanup(func() {
		k.stop()
		_ = os.RemoveAll(dir)
	})
	return k
}

// stop closes the listener and every connection and waits for the
// server's goroutines.
func (k *fakeKernel) stop() {
	_ = k.ln.Close()
	k.mu.Lock()
	for _, fc := range k.conns {
		_ = fc.nc.Close()
	}
	k.mu.Unlock()
	k.wg.Wait()
}

func (k *fakeKernel) acceptLoop() {
	defer k.wg.Done()
	for {
		nc, err := k.ln.Accept()
		if err != nil {
			return
		}
		k.mu.Lock()
		fc := &fakeConn{k: k, index: len(k.conns), nc: nc, w: proto.NewWriter(nc)}
		k.conns = append(k.conns, fc)
		k.mu.Unlock()
		k.accepted <- fc
		k.wg.Add(1)
		go fc.serve()
	}
}

func (fc *fakeConn) serve() {
	defer fc.k.wg.Done()
	r := proto.NewReader(fc.nc, 0)
	var reqs sync.WaitGroup
	defer reqs.Wait()
	for {
		frame, err := r.ReadFrame()
		if err != nil {
			_ = fc.nc.Close()
			return
		}
		req, rerr := proto.DecodeRequest(frame)
		if rerr != nil {
			fc.k.t.Errorf("fake kernel: bad request %q: %v", frame, rerr)
			continue
		}
		fc.k.mu.Lock()
		h := fc.k.handle
		fc.k.mu.Unlock()
		if h == nil {
			h = fc.k.defaultHandle
		}
		reqs.Add(1)
		go func() {
			defer reqs.Done()
			h(fc, req)
		}()
	}
}

// conn waits for the i-th accepted connection.
func (k *fakeKernel) conn(i int) *fakeConn {
	k.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		k.mu.Lock()
		if i < len(k.conns) {
			fc := k.conns[i]
			k.mu.Unlock()
			return fc
		}
		k.mu.Unlock()
		select {
		case <-k.accepted:
		case <-deadline:
			k.t.Fatalf("fake kernel: connection %d never arrived", i)
		}
	}
}

func (k *fakeKernel) setHandler(h func(fc *fakeConn, req *proto.Request)) {
	k.mu.Lock()
	k.handle = h
	k.mu.Unlock()
}

func (k *fakeKernel) subscribeCalls() []subCall {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]subCall(nil), k.subscribes...)
}

func (k *fakeKernel) attachCalls() []json.RawMessage {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]json.RawMessage(nil), k.attaches...)
}

func (fc *fakeConn) reply(id json.RawMessage, result any) {
	_ = fc.w.WriteFrame(proto.NewResponse(id, result))
}

func (fc *fakeConn) replyErr(id json.RawMessage, code int, msg string) {
	_ = fc.w.WriteFrame(proto.NewErrorResponse(id, proto.NewError(code, msg, map[string]any{"hint": "h"})))
}

func (fc *fakeConn) event(channel string, seq uint64, payload any) {
	ev := proto.Event{Channel: channel, Seq: seq, TS: int64(seq) * 1000, Payload: payload}
	_ = fc.w.WriteFrame(proto.NewNotification(proto.MethodEvent, ev))
}

func (fc *fakeConn) raw(line string) {
	_ = fc.w.WriteRaw([]byte(line + "\n"))
}

// defaultHandle serves a small method set:
//
//	echo              result = params
//	sleep {ms, v}     wait ms, then result = v
//	hang              never answered
//	fail {code, msg}  error response
//	session.attach    recorded; {session, principal}
//	events.subscribe  recorded; replays k.replay[channel] first
//	events.read       from k.replay
//	events.publish, events.unsubscribe, kernel.info, parse, exec, value.get: canned
func (k *fakeKernel) defaultHandle(fc *fakeConn, req *proto.Request) {
	var p struct {
		MS      int             `json:"ms"`
		V       json.RawMessage `json:"v"`
		Code    int             `json:"code"`
		Msg     string          `json:"msg"`
		Session string          `json:"session"`
		Channel string          `json:"channel"`
		Since   *uint64         `json:"since"`
		Src     string          `json:"src"`
		Ref     string          `json:"ref"`
	}
	if req.Params != nil {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			fc.replyErr(req.ID, proto.CodeInvalidParams, err.Error())
			return
		}
	}
	switch req.Method {
	case "echo":
		fc.reply(req.ID, req.Params)
	case "sleep":
		time.Sleep(time.Duration(p.MS) * time.Millisecond)
		fc.reply(req.ID, p.V)
	case "hang":
	case "fail":
		fc.replyErr(req.ID, p.Code, p.Msg)
	case proto.MethodSessionAttach:
		k.mu.Lock()
		k.attaches = append(k.attaches, req.Params)
		k.mu.Unlock()
		s := p.Session
		if s == "" {
			s = "default"
		}
		fc.reply(req.ID, map[string]any{
			"session": s, "principal": "uid:1000", "env_hash": "ab", "ast_version": 2,
			"caps":     map[string]any{"enforced": false, "tier": "none", "opaque": "deny", "token_caps": []string{}},
			"cwd":      map[string]any{"display": "/w"},
			"channels": []string{"journal", "render"},
		})
	case proto.MethodEventsSubscribe:
		k.mu.Lock()
		k.subscribes = append(k.subscribes, subCall{conn: fc.index, channel: p.Channel, since: p.Since})
		var replay []Event
		for _, ev := range k.replay[p.Channel] {
			if p.Since == nil || ev.Seq > *p.Since {
				replay = append(replay, ev)
			}
		}
		k.mu.Unlock()
		for _, ev := range replay {
			fc.event(ev.Channel, ev.Seq, ev.Payload)
		}
		fc.reply(req.ID, map[string]any{"channel": p.Channel, "subscribed": true})
	case proto.MethodEventsRead:
		k.mu.Lock()
		evs := []map[string]any{}
		for _, ev := range k.replay[p.Channel] {
			if p.Since == nil || ev.Seq > *p.Since {
				evs = append(evs, map[string]any{"seq": ev.Seq, "ts": ev.TS, "payload": ev.Payload})
			}
		}
		k.mu.Unlock()
		fc.reply(req.ID, map[string]any{"channel": p.Channel, "events": evs})
	case proto.MethodEventsPublish:
		fc.reply(req.ID, map[string]any{"channel": p.Channel, "seq": 11, "ts": 5})
	case proto.MethodEventsUnsubscribe:
		fc.reply(req.ID, map[string]any{"channel": p.Channel, "subscribed": false})
	case proto.MethodKernelInfo:
		fc.reply(req.ID, map[string]any{
			"name": "shoal-kernel", "version": "0.1.0", "protocol": 1, "ast_version": 2,
			"methods": []map[string]any{
				{"name": "exec", "requires_attach": true, "implemented": true},
				{"name": "pty.open", "requires_attach": true, "implemented": false},
			},
			"pre_attach": proto.PreAttachMethods(),
			"features":   map[string]bool{"tokens": true},
			"limits":     map[string]int{"max_frame": proto.MaxFrame},
			"future":     "ignored",
		})
	case proto.MethodParse:
		if p.Src == "(" {
			fc.replyErr(req.ID, proto.CodeParseError, "expected expression")
			return
		}
		fc.reply(req.ID, map[string]any{"ast_version": 2, "ast": map[string]any{"stmts": []any{}}})
	case proto.MethodExec:
		fc.reply(req.ID, map[string]any{"ref": "out:1", "value": proto.Int(len(p.Src)), "render": "n"})
	case proto.MethodValueGet:
		fc.reply(req.ID, map[string]any{"ref": p.Ref, "value": proto.List{proto.Str("a"), proto.Bool(true)}})
	default:
		fc.replyErr(req.ID, proto.CodeMethodNotFound, "method not found: "+req.Method)
	}
}

// isClosed reports whether err is a closed-connection error.
func isClosed(err error) bool { return errors.Is(err, ErrClosed) }
