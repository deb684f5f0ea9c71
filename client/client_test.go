package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/proto"
)

func dialFake(t *testing.T, k *fakeKernel, opts ...Option) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, k.path, opts...)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestCallEcho(t *testing.T) {
	k := newFakeKernel(t)
	c := dialFake(t, k)
	ctx := testCtx(t)
	var got map[string]int
	if err := c.Call(ctx, "echo", map[string]int{"a": 1}, &got); err != nil {
		t.Fatal(err)
	}
	if got["a"] != 1 {
		t.Fatalf("echo = %v", got)
	}
	var raw json.RawMessage
	if err := c.Call(ctx, "echo", nil, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw) != "{}" {
		t.Fatalf("nil params sent as %s, want {}", raw)
	}
}

// TestConcurrentOutOfOrder holds every request until all have arrived and
// answers them in reverse order, with an event notification and frames
// the client must ignore between responses.
func TestConcurrentOutOfOrder(t *testing.T) {
	const n = 16
	k := newFakeKernel(t)
	var (
		mu   sync.Mutex
		held []*proto.Request
		all  = make(chan struct{})
	)
	k.setHandler(func(fc *fakeConn, req *proto.Request) {
		if req.Method != "gather" {
			k.defaultHandle(fc, req)
			return
		}
		mu.Lock()
		held = append(held, req)
		if len(held) < n {
			mu.Unlock()
			return
		}
		reqs := held
		mu.Unlock()
		close(all)
		for i := len(reqs) - 1; i >= 0; i-- {
			fc.event("user.x", uint64(n-i), proto.Int(i))
			fc.raw(`{"jsonrpc":"2.0","method":"other","params":{}}`)
			fc.raw(`{"jsonrpc":"2.0","id":"not-ours","result":1}`)
			fc.raw(`{"jsonrpc":"2.0","id":987654321,"result":1}`)
			fc.raw(`[1,2,3]`)
			fc.reply(reqs[i].ID, reqs[i].Params)
		}
	})
	c := dialFake(t, k)
	ctx := testCtx(t)
	sub, err := c.SubscribeLive(ctx, "user.x")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got struct{ I int }
			if err := c.Call(ctx, "gather", map[string]int{"i": i}, &got); err != nil {
				errs <- err
				return
			}
			if got.I != i {
				errs <- fmt.Errorf("call %d got result for %d", i, got.I)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	<-all
	for want := uint64(1); want <= n; want++ {
		select {
		case ev := <-sub.Events():
			if ev.Seq != want || ev.Channel != "user.x" {
				t.Fatalf("event %+v, want seq %d", ev, want)
			}
			if v, err := ev.Value(); err != nil || v.Tag() != proto.TagInt {
				t.Fatalf("event value %v, %v", v, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("event %d not delivered", want)
		}
	}
}

func TestErrorResponse(t *testing.T) {
	k := newFakeKernel(t)
	c := dialFake(t, k)
	ctx := testCtx(t)
	err := c.Call(ctx, "fail", map[string]any{"code": proto.CodeLeashDenied, "msg": "denied"}, nil)
	var rpcErr *proto.RPCError
	if !errors.As(err, &rpcErr) {
		t.Fatalf("err = %v (%T), want *proto.RPCError", err, err)
	}
	if rpcErr.Code != proto.CodeLeashDenied || rpcErr.Message != "denied" {
		t.Fatalf("rpc error = %+v", rpcErr)
	}
	if isClosed(err) {
		t.Fatalf("an RPC error must not look like a closed connection")
	}
	err = c.Call(ctx, "no.such", nil, nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != proto.CodeMethodNotFound {
		t.Fatalf("unknown method: %v", err)
	}
	// The connection is still good.
	if err := c.Call(ctx, "echo", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestContextCancel(t *testing.T) {
	k := newFakeKernel(t)
	var hung = make(chan json.RawMessage, 1)
	k.setHandler(func(fc *fakeConn, req *proto.Request) {
		if req.Method == "hang" {
			hung <- req.ID
			return
		}
		k.defaultHandle(fc, req)
	})
	c := dialFake(t, k)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := c.Call(ctx, "hang", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	c.mu.Lock()
	cn := c.conn
	c.mu.Unlock()
	cn.mu.Lock()
	left := len(cn.pending)
	cn.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d pending entries after cancellation", left)
	}
	// A late answer to the abandoned id is ignored, and the connection
	// keeps working.
	id := <-hung
	k.conn(0).reply(id, "late")
	var got string
	if err := c.Call(testCtx(t), "sleep", map[string]any{"ms": 1, "v": "fresh"}, &got); err != nil || got != "fresh" {
		t.Fatalf("after cancel: %q, %v", got, err)
	}
	// An already cancelled context never sends.
	done, stop := context.WithCancel(context.Background())
	stop()
	if err := c.Call(done, "echo", nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: %v", err)
	}
}

func TestServerCloseFailsPending(t *testing.T) {
	k := newFakeKernel(t)
	const n = 5
	arrived := make(chan struct{}, n)
	k.setHandler(func(fc *fakeConn, req *proto.Request) {
		if req.Method == "hang" {
			arrived <- struct{}{}
			return
		}
		k.defaultHandle(fc, req)
	})
	var states []State
	var smu sync.Mutex
	c := dialFake(t, k, WithStateHook(func(s State, err error) {
		smu.Lock()
		states = append(states, s)
		smu.Unlock()
	}))
	ctx := testCtx(t)
	sub, err := c.Subscribe(ctx, "journal", 0)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, n)
	for range n {
		go func() { errs <- c.Call(ctx, "hang", nil, nil) }()
	}
	for range n {
		<-arrived
	}
	_ = k.conn(0).nc.Close()
	for range n {
		if err := <-errs; !isClosed(err) {
			t.Fatalf("pending call: %v, want ErrClosed", err)
		}
	}
	<-c.Done()
	if err := c.Call(ctx, "echo", nil, nil); !isClosed(err) {
		t.Fatalf("call after loss: %v", err)
	}
	if _, ok := <-sub.Events(); ok {
		t.Fatal("subscription channel still open after loss")
	}
	if !isClosed(sub.Err()) {
		t.Fatalf("sub.Err = %v", sub.Err())
	}
	smu.Lock()
	defer smu.Unlock()
	if len(states) != 1 || states[0] != StateClosed {
		t.Fatalf("states = %v", states)
	}
}

func TestMalformedFrameFailsPending(t *testing.T) {
	k := newFakeKernel(t)
	k.setHandler(func(fc *fakeConn, req *proto.Request) {
		if req.Method == "garble" {
			fc.raw(`{"jsonrpc":"2.0","id":`)
			return
		}
		k.defaultHandle(fc, req)
	})
	c := dialFake(t, k)
	err := c.Call(testCtx(t), "garble", nil, nil)
	if !isClosed(err) || !errors.Is(err, ErrMalformedFrame) {
		t.Fatalf("err = %v, want ErrClosed wrapping ErrMalformedFrame", err)
	}
}

// TestDeepAnswerFailsOnlyItsCall checks that an answer nested past
// proto.MaxFrameDepth (here 200 000 levels, far past encoding/json's own
// limit) fails its call with ErrFrameTooDeep without being decoded, that a
// deep event is dropped, and that the connection keeps serving.
func TestDeepAnswerFailsOnlyItsCall(t *testing.T) {
	const n = 200000
	deep := strings.Repeat("[", n) + strings.Repeat("]", n)
	k := newFakeKernel(t)
	k.setHandler(func(fc *fakeConn, req *proto.Request) {
		if req.Method == "deep" {
			fc.raw(`{"jsonrpc":"2.0","method":"event","params":{"channel":"c","seq":1,"ts":1,"payload":` + deep + `}}`)
			fc.raw(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + deep + `}`)
			return
		}
		k.defaultHandle(fc, req)
	})
	c := dialFake(t, k)
	err := c.Call(testCtx(t), "deep", nil, nil)
	if !errors.Is(err, ErrFrameTooDeep) || isClosed(err) {
		t.Fatalf("err = %v, want ErrFrameTooDeep on a live connection", err)
	}
	var out json.RawMessage
	if err := c.Call(testCtx(t), "echo", map[string]int{"a": 1}, &out); err != nil {
		t.Fatalf("call after the deep answer: %v", err)
	}
}

func TestOverlongFrameClosesConnection(t *testing.T) {
	k := newFakeKernel(t)
	k.setHandler(func(fc *fakeConn, req *proto.Request) {
		fc.reply(req.ID, string(make([]byte, 200)))
	})
	c := dialFake(t, k, WithMaxFrame(64))
	err := c.Call(testCtx(t), "echo", nil, nil)
	if !isClosed(err) || !errors.Is(err, proto.ErrFrameTooLong) {
		t.Fatalf("err = %v, want ErrClosed wrapping ErrFrameTooLong", err)
	}
}

func TestCloseFailsPendingAndIsIdempotent(t *testing.T) {
	k := newFakeKernel(t)
	c := dialFake(t, k)
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), "hang", nil, nil) }()
	// Wait until the request is pending.
	for {
		c.mu.Lock()
		cn := c.conn
		c.mu.Unlock()
		cn.mu.Lock()
		n := len(cn.pending)
		cn.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	_ = c.Close()
	_ = c.Close()
	if err := <-errc; !isClosed(err) || !errors.Is(err, ErrClientClosed) {
		t.Fatalf("pending after Close: %v", err)
	}
	if err := c.Call(context.Background(), "echo", nil, nil); !isClosed(err) {
		t.Fatalf("call after Close: %v", err)
	}
}

func TestDialError(t *testing.T) {
	_, err := Dial(context.Background(), "/nonexistent/sc/k.sock")
	if err == nil {
		t.Fatal("dial of a missing socket succeeded")
	}
}

// TestImmediateHangup: a kernel that closes every connection at once. The
// client must notice even if the loss races Dial publishing the connection.
func TestImmediateHangup(t *testing.T) {
	for range 20 {
		k := newFakeKernel(t)
		go func() {
			fc := <-k.accepted
			_ = fc.nc.Close()
		}()
		c := dialFake(t, k)
		select {
		case <-c.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("client never noticed the hangup")
		}
		if !isClosed(c.Err()) {
			t.Fatalf("Err = %v", c.Err())
		}
	}
}
