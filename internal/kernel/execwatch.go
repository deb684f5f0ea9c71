package kernel

import (
	"context"

	"github.com/shoalgo/shoal/internal/tasks"
)

// Watched execs: `exec {…, watch: true}` (an addition) subscribes the
// connection that sent a synchronous exec (or one with timeout_ms) to the
// exec's own task channel task.N, from its first event, for as long as
// the exec's task runs, so the client sees its output as it is printed
// without having to learn the task's id first (`shoal --kernel` prints
// it so). When the task's work is done, every event it published is
// queued to the connection before the exec's answer (within
// WatchDrainWait), so the client sees a watched exec's events before its
// answer and none after it.

// watchExec subscribes c's connection to the channel of the exec task
// running in ctx and returns the function that ends it.
func (c *call) watchExec(ctx context.Context) func() {
	t, ok := tasks.Current(ctx)
	if !ok {
		return func() {}
	}
	subs, ok := c.conn.subscriberFor(c.att)
	if !ok {
		return func() {}
	}
	channel := t.Record().Channel()
	since := uint64(0)
	if _, err := subs.Subscribe(c.att.sess.scope(), channel, &since); err != nil {
		// Already subscribed by the client, or past a subscription
		// bound: the exec runs unwatched.
		return func() {}
	}
	return func() { subs.Finish(channel, WatchDrainWait) }
}
