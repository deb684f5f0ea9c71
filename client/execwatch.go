package client

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// ExecWatchBuffer bounds the events a watched exec holds for a callback
// that has not taken them yet; past it later events are dropped (their
// output offsets then skip what they carried).
const ExecWatchBuffer = 256

// ExecWatchPast is how many channels of earlier watched execs a client
// remembers, so that a late event of one (a detached timeout_ms exec's
// task keeps its subscription) never reaches a later watched exec.
const ExecWatchPast = 8

// execWatch is the one watched exec a client runs at a time: the events
// of a task channel the client did not subscribe to go to it.
type execWatch struct {
	ch      chan Event
	channel string // the first event's channel; guarded by Client.mu
}

// watchState is the client's watched-exec state (ExecWatch).
type watchState struct {
	one  sync.Mutex // ExecWatch calls run one at a time
	cur  *execWatch // guarded by Client.mu
	past []string   // channels of earlier watched execs, guarded by Client.mu
}

// ExecWatch runs p with watch set: the kernel subscribes this connection
// to the exec's own task channel while it runs, and onEvent receives its
// events (record changes and output events, see proto.TaskOutputEvent) in
// order, on a goroutine of its own, as they arrive. The kernel queues a
// synchronous watched exec's events ahead of its answer, so ExecWatch
// returns once the exec has answered and onEvent has returned for every
// one of them (within the kernel's bound for a slow reader; an exec's
// output is also in its render event). Calls on one client are
// serialised.
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
	if w.channel != "" {
		if len(c.watch.past) == ExecWatchPast {
			c.watch.past = append(c.watch.past[:0], c.watch.past[1:]...)
		}
		c.watch.past = append(c.watch.past, w.channel)
	}
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
	if w == nil || !strings.HasPrefix(ev.Channel, "task.") || slices.Contains(c.watch.past, ev.Channel) {
		return false
	}
	if w.channel == "" {
		w.channel = ev.Channel
	} else if ev.Channel != w.channel {
		return false // not this exec's task
	}
	select {
	case w.ch <- ev:
	default: // the callback is behind: dropped
	}
	return true
}
