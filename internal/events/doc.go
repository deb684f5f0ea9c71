// Package events is the kernel's event bus: named channels with
// per-channel sequence numbers, a bounded replay ring, cursor reads and
// push subscriptions that never let a slow reader hold up a publisher.
//
// # Scopes and channels
//
// Most channels are scoped: user.*, session.transcript, render, task.N and pty.N
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
//     event, whether that reader may see the event.
//   - a reader's own [View] (ReadView, Subscriber.SubscribeView) may
//     narrow further by the scope each event was published from. The
//     kernel's journal channel uses it to show each attachment only the
//     rows it may read.
//
// Readers of a global channel therefore see gaps in seq; the sequence is
// still strictly increasing. A reader who may see only its own events
// gets a sequence of its own instead (View.Renumber): each event also
// carries its number among its origin's events (Event.ScopeSeq), given
// by the store (PublishAtScoped; the kernel's journal numbers each
// principal's rows) or, on a channel no store numbers, by the bus per
// origin scope (ScopeRenumber), so that its seqs count nothing it may
// not see.
//
// # Retention
//
// Each stream keeps at most [RingSize] events and, with its scope and the
// whole bus, the byte budgets of [Limits]: past one, the oldest events of
// the stream, of the scope, or of the scope retaining the most are dropped.
// A scope keeps at most Limits.ScopeChannels user.*, task.N and pty.N streams;
// one more forgets the idlest stream nobody subscribes to, or is refused
// with a [*budget.ExceededError] when every one has subscribers. Every
// sequence number is at most [MaxSeq], which JSON carries exactly.
//
// # Delivery
//
// A [Subscription] has a goroutine that hands events, in order, to a
// [Sink]. It holds no queue of its own: it keeps a cursor into the
// stream's retained events, so replay from a cursor and live events
// arrive in seq order with no gap or duplicate, and a subscriber that lags
// costs nothing beyond what the stream retains. Events dropped from
// retention before the subscriber received them are reported, where they
// were, by one synthetic event (Seq 0, payload
// {"dropped":N,"latest_seq":S}). A sink that cannot take an event now
// returns [ErrSinkFull] and is offered it again later. Publish never waits
// for a subscriber.
//
// # Durable channels
//
// A channel a durable store numbers (the kernel's journal numbers journal
// and session.transcript) is published with the store's seq ([Bus.PublishAt])
// after the store has the event, and read through a [View] whose
// [Backfill] rebuilds from the store what the ring does not retain: reads
// and subscriptions then see one gapless run across the seam, and a
// lagging subscription reads from the store instead of being told of
// drops. While such a stream has no subscription its publisher may skip
// an event altogether ([Bus.SkipUnwatched]): the ring then keeps none and
// readers get them all from the store.
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
