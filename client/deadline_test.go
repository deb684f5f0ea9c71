package client

import (
	"context"
	"errors"
	"testing"
	"time"
)

// lapsedCtx is a context whose deadline has passed while its own timer
// has not yet marked it done, as happens for a moment on a busy machine.
type lapsedCtx struct{ context.Context }

func (lapsedCtx) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }
func (lapsedCtx) Err() error                  { return nil }

// TestLapsedDeadlineKeepsTheConnection: a call whose deadline lapses as
// its frame is written fails with context.DeadlineExceeded, and the
// connection, which was sent nothing, stays usable for the next call.
func TestLapsedDeadlineKeepsTheConnection(t *testing.T) {
	k := newFakeKernel(t)
	c := dialFake(t, k)
	err := c.Call(lapsedCtx{context.Background()}, "echo", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call past its deadline: %v, want context.DeadlineExceeded", err)
	}
	if errors.Is(err, ErrClosed) {
		t.Fatalf("a lapsed deadline closed the connection: %v", err)
	}
	if err := c.Call(testCtx(t), "echo", nil, nil); err != nil {
		t.Fatalf("the next call on the same connection: %v", err)
	}
}
