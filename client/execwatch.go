package client

import (
	"context"
	"strings"
	"sync"
)

// ExecWatchBuffer bounds the events a watched exec holds for a callback
// that has not taken them yet; past it later events are dropped (their
// output offsets then skip what they carried).
const ExecWatchBuffer = 256

// execWatch is the one watched exec a client runs at a time: the events
// of a task channel the client did not subscribe to go to it.
type execWatch struct {
	ch chan Event
}

// watchState is the client's watched-exec state (ExecWatch).
type watchState struct {
	one sync.Mutex // ExecWatch calls run one at a time
	cur *execWatch // guarded by Client.mu
}

// ExecWatch runs p with watch set: the kernel subscribes this connection
// to the exec's own task channel while it runs, and onEvent receives its
// events (record changes and output events, see proto.TaskOutputEvent) in
// order, on a goroutine of its own, as they arrive. ExecWatch returns once
// the exec has answered and onEvent has returned for every event received
// before the answer. Events the kernel had not delivered when the exec
// ended are not (an exec's output is also in its render event). Calls on
// one client are serialised.
func (c *Client) ExecWatch(ctx context.Context, p ExecParams, onEvent func(Event)) (*ExecResult, error) {
	c.watch.one.Lock()
	defer c.watch.one.Unlock()
	w := &execWatch{ch: make(chan Event, ExecWatchBuffer)}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for ev := range w.ch {
			onEvent(ev)
		}
	}()
	c.mu.Lock()
	c.watch.cur = w
	c.mu.Unlock()
	p.Watch = true
	res, err := c.Exec(ctx, p)
	c.mu.Lock()
	c.watch.cur = nil
	close(w.ch) // sends happen under c.mu only
	c.mu.Unlock()
	<-drained
	return res, err
}

// dispatchWatched hands ev to the watched exec when it is on a task
// channel nothing else subscribed to; it reports whether it took it.
// Called with c.mu held.
func (c *Client) dispatchWatched(ev Event) bool {
	w := c.watch.cur
	if w == nil || !strings.HasPrefix(ev.Channel, "task.") {
		return false
	}
	select {
	case w.ch <- ev:
	default: // the callback is behind: dropped
	}
	return true
}
