package mcp

import (
	"context"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/client"
)

// resourceSub is one kernel channel the facade subscribes to for its MCP
// client, and the resource URIs its events update. The client package
// resubscribes it from its cursor after a kernel restart.
type resourceSub struct {
	channel string
	sub     *client.Subscription
	uris    map[string]bool
	done    chan struct{}
	// sending is held while updates go out, so that unsubscribe can wait
	// for one in flight before it answers.
	sending sync.Mutex
}

// subscribe is resources/subscribe: the kernel channel behind the URI is
// subscribed (live, from now on) and every event on it becomes a
// notifications/resources/updated for the URI.
func (f *Facade) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	uri := req.Params.URI
	ch := channelOf(uri)
	if ch == "" {
		return fmt.Errorf("%s cannot be subscribed to: subscribe to shoal://journal, shoal://task/{id}, shoal://pty/{id} or shoal://events/{channel}", uri)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if rs, ok := f.subs[ch]; ok {
		rs.uris[uri] = true
		return nil
	}
	if len(f.subs) >= MaxSubscriptions {
		return fmt.Errorf("%s: at most %d channels may be subscribed at once", uri, MaxSubscriptions)
	}
	s, err := f.c.SubscribeLive(ctx, ch)
	if err != nil {
		if re, ok := asRPC(err); ok {
			return fmt.Errorf("kernel error %d: %s", re.Code, re.Message)
		}
		return err
	}
	rs := &resourceSub{channel: ch, sub: s, uris: map[string]bool{uri: true}, done: make(chan struct{})}
	f.subs[ch] = rs
	go f.forward(rs)
	return nil
}

// forward turns a channel's events into resource updates until the
// subscription ends.
func (f *Facade) forward(rs *resourceSub) {
	defer close(rs.done)
	for range rs.sub.Events() {
		rs.sending.Lock()
		f.mu.Lock()
		uris := make([]string, 0, len(rs.uris))
		for u := range rs.uris {
			uris = append(uris, u)
		}
		f.mu.Unlock()
		for _, u := range uris {
			_ = f.srv.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: u})
		}
		rs.sending.Unlock()
	}
}

// unsubscribe is resources/unsubscribe: the URI hears no more, and the
// kernel channel is unsubscribed once no URI needs it. It returns after
// the forwarder stopped, so no update for the URI follows its answer.
func (f *Facade) unsubscribe(ctx context.Context, req *sdk.UnsubscribeRequest) error {
	uri := req.Params.URI
	ch := channelOf(uri)
	f.mu.Lock()
	rs, ok := f.subs[ch]
	if !ok || !rs.uris[uri] {
		f.mu.Unlock()
		return nil // not subscribed: nothing to undo
	}
	delete(rs.uris, uri)
	if len(rs.uris) > 0 {
		f.mu.Unlock()
		// A barrier: an update already copying uri goes out first.
		rs.sending.Lock()
		rs.sending.Unlock() //lint:ignore SA2001 the lock is a barrier, not a guard
		return nil
	}
	delete(f.subs, ch)
	f.mu.Unlock()
	err := rs.sub.Unsubscribe(ctx)
	select {
	case <-rs.done:
	case <-time.After(5 * time.Second):
	}
	return err
}

// dropSubscriptions ends every kernel subscription (the MCP client left).
func (f *Facade) dropSubscriptions() {
	f.mu.Lock()
	subs := f.subs
	f.subs = make(map[string]*resourceSub)
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, rs := range subs {
		_ = rs.sub.Unsubscribe(ctx)
	}
}
