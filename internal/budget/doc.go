// Package budget accounts memory (and other countable resources) against
// named bounds, so that what input makes the kernel keep is refused with
// a typed error before it exhausts the process. It knows nothing of what
// is charged; its callers charge what they retain. It offers two kinds of
// budget, for two kinds of consumer:
//
//   - A [Budget] is a bound in a tree: a session's budget under the
//     kernel-wide one, so a charge must fit both. Use it where the
//     consumer is a principal's work whose memory is released when the
//     values die (the evaluator charges the values a session keeps, the
//     host the output it captures): a charge that does not fit first
//     calls the budget's reclaim function (the kernel's forces one
//     garbage collection, internal/reclaim) so that dead values
//     return their charges, and is then refused. Nothing already charged
//     is taken away; the kernel's memory guard cancels the largest
//     consumer through [Budget.Cancel] when the process nears its limit.
//
//   - A [Pool] is one flat bound shared by many [Holder]s that can be
//     ended to reclaim what they hold (the kernel's read buffers of all
//     connections together, their outbound queues). While it has room
//     every Grow succeeds; once full it is shared fairly: a holder past
//     its fair share (the limit divided among the holders holding
//     something) is refused, and a holder within it takes the room from
//     the largest holders, which are evicted and closed by their owners.
//     One connection that hoards memory therefore loses it, and the others
//     go on.
//
// Every refusal, of either kind and of the count bounds other packages
// keep (event channels, live tasks), is an [*ExceededError] naming the
// budget and its limit, matched by errors.Is(err, [ErrExceeded]); its
// code, in language errors and in the kernel's RPC error data, is
// [CodeQuotaExceeded].
//
// Both kinds are safe for concurrent use. A nil *Budget is unlimited and
// accounts nothing, so callers need no special case for "no budget".
package budget
