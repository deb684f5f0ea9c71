// Package events is the kernel's event bus: named channels with
// per-channel sequence numbers, a bounded replay ring, cursor reads and
// push subscriptions that never let a slow reader hold up a publisher.
//
// # Scopes and channels
//
// Most channels are scoped: user.*, session.transcript, render and task.N
// live inside the (principal, session) pair, a [Scope], they arise in. The
// same channel name in two scopes names two independent streams, each
// with its own sequence starting at 1 and its own ring.
//
// Two channels are global (see [IsGlobal]): journal and approval. Each has
// one stream for the whole kernel, and what a reader sees of it is
// decided per reader:
//
//   - an event may carry an [Audience] (PublishTo); only scopes in the
//     audience see it. Approval events use this: the plan owner's scope
//     plus every approving principal. [Bus.Publish] on approval defaults
//     the audience to the publishing scope alone.
//   - a per-channel [Filter] (SetFilter) is asked, for each reader and
//     event, whether that reader may see the event. The journal uses it to
//     hide rows the reader may not read.
//
// Readers of a global channel therefore see gaps in seq; the sequence is
// still strictly increasing.
//
// # Delivery
//
// A [Subscription] owns a queue of [QueueSize] events and a goroutine that
// hands them, in order, to a [Sink]. Publish appends to the queue without
// waiting; replay from a cursor goes through the same queue first, so
// replay and live events arrive in seq order with no gap or duplicate.
// When the queue is full, further events are counted rather than queued;
// as soon as a slot frees, one synthetic event (Seq 0, payload
// {"dropped":N,"latest_seq":S}) takes it, and the subscriber can recover
// the gap with [Bus.Read].
//
// A [Subscriber] groups the subscriptions of one client connection so
// they can be unsubscribed by channel name and closed together.
//
// # Bridge
//
// [Bus.OnPublish] registers observers called after every Publish or
// PublishTo; the kernel uses one to mirror client user.* events into the
// session's language channel bus. [Bus.Inject] publishes without calling
// observers, so events coming back from that bus do not echo.
package events
