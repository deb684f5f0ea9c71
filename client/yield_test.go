package client

import (
	"context"
	"net"
	"runtime"
	"sync"
	"testing"
)

// oneProcessor runs the rest of the test on one processor, as the MCP
// facade runs (the reader yields to the caller it answered only there).
func oneProcessor(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}

// orderConn notes, for each call answered, whether the caller had its
// answer before the reader began its next read.
type orderConn struct {
	net.Conn
	mu       sync.Mutex
	answered bool // a read returned input; the caller has not yet run
	first    int  // calls whose caller ran before the next read
	late     int  // calls whose next read began before their caller ran
}

func (o *orderConn) Read(p []byte) (int, error) {
	o.mu.Lock()
	if o.answered {
		o.late++
		o.answered = false
	}
	o.mu.Unlock()
	n, err := o.Conn.Read(p)
	o.mu.Lock()
	o.answered = n > 0
	o.mu.Unlock()
	return n, err
}

func (o *orderConn) callerRan() {
	o.mu.Lock()
	if o.answered {
		o.first++
		o.answered = false
	}
	o.mu.Unlock()
}

// TestReaderYieldsToCaller: on one processor the caller a frame answered
// runs before the reader reads again. The runtime takes its global queue
// first now and then (one schedule in 61), so most calls, not all, are
// asked of it; before the yield none was so.
func TestReaderYieldsToCaller(t *testing.T) {
	oneProcessor(t)
	k := newFakeKernel(t)
	var oc *orderConn
	dial := func(ctx context.Context, path string) (net.Conn, error) {
		nc, err := (&net.Dialer{}).DialContext(ctx, "unix", path)
		if err != nil {
			return nil, err
		}
		oc = &orderConn{Conn: nc}
		return oc, nil
	}
	c := dialFake(t, k, WithDialer(dial))
	ctx := testCtx(t)
	const calls = 200
	for range calls {
		if err := c.Call(ctx, "echo", nil, nil); err != nil {
			t.Fatal(err)
		}
		oc.callerRan()
	}
	oc.mu.Lock()
	defer oc.mu.Unlock()
	if oc.first < calls*9/10 {
		t.Fatalf("the caller ran first after %d answers of %d (the reader read first after %d)", oc.first, calls, oc.late)
	}
}

// The client's behaviour on one processor, where the reader yields:
// concurrent calls answered out of order with events between, a
// cancelled call, a kernel that hangs up with calls pending, and
// subscriptions' events.
func TestOneProcessorConcurrentOutOfOrder(t *testing.T) {
	oneProcessor(t)
	TestConcurrentOutOfOrder(t)
}

func TestOneProcessorContextCancel(t *testing.T) {
	oneProcessor(t)
	TestContextCancel(t)
}

func TestOneProcessorServerCloseFailsPending(t *testing.T) {
	oneProcessor(t)
	TestServerCloseFailsPending(t)
}

func TestOneProcessorSubscriptions(t *testing.T) {
	oneProcessor(t)
	t.Run("replay", TestSubscribeReplayBeforeResponse)
	t.Run("overflow", TestSubscriptionOverflowCoalesces)
	t.Run("detached", TestDetachedEndsSubscriptions)
	t.Run("read-publish", TestEventsReadAndPublish)
}
