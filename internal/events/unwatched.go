package events

// Unwatched durable events. The kernel's journal numbers the journal and
// session.transcript channels and keeps every event's row, and a reader's
// View.Backfill rebuilds from the rows, byte for byte, what the ring does
// not retain. While nobody subscribes to such a stream, retaining each
// event in the ring only spares later reads a query of the store, and
// costs every exec encoding both events, holding them (a kilobyte and
// more an exec, marked by every collection) and publishing them
// (docs/performance.md, "The request path: the thirteenth round").
// SkipUnwatched lets the publisher skip them then.

// SkipUnwatched is for a channel a durable store numbers (PublishAt):
// when no subscription follows channel in origin's scope (on a global
// channel, anywhere), it lets go of every event the stream retains, moves
// the stream's seq to seq, and reports true; the caller then publishes
// nothing, and readers get the event, and the ones let go, from the store
// (View.Backfill), as they get what the ring no longer holds. It reports
// false and changes nothing when the stream has a subscription (publish
// the event), and when seq is not one PublishAt would take (not above the
// stream's last, past MaxSeq: publish, which refuses it). A subscription
// made afterwards starts from the store for whatever the ring lacks, so
// it sees the skipped events in seq order like any it missed.
func (b *Bus) SkipUnwatched(origin Scope, channel string, seq uint64) bool {
	if checkChannel(channel) != nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	st, err := b.streamLocked(origin, channel, true)
	if err != nil || len(st.subs) > 0 || seq <= st.seq || seq > MaxSeq {
		return false
	}
	for st.n > 0 {
		b.dropOldestLocked(st)
	}
	st.seq = seq
	st.skipped = true
	return true
}
