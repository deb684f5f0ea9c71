// Package client is the Go client library for the Shoal kernel's JSON-RPC
// protocol over a Unix socket.
//
// A [Client] owns one connection at a time. A single reader goroutine per
// connection demultiplexes everything the kernel sends: responses are
// matched to pending calls by id, and "event" notifications are routed to
// the [Subscription] for their channel. Frames are written whole under one
// lock, so concurrent calls never interleave bytes.
//
//	c, err := client.Dial(ctx, client.DefaultSocketPath("default"))
//	if err != nil { ... }
//	defer c.Close()
//	if _, err := c.Attach(ctx, client.AttachParams{Session: "work"}); err != nil { ... }
//	res, err := c.Exec(ctx, client.ExecParams{Src: "1 + 2"})
//
// A kernel error comes back as a *proto.RPCError (use errors.As); losing
// the connection fails every pending call with an error matching
// [ErrClosed]. With [WithReconnect] the client redials with backoff,
// repeats the last session.attach and resubscribes each channel from the
// last sequence number it received; calls in flight at the moment of loss
// still fail and are never replayed.
package client
