package events

import "time"

// Bounds of the event bus, set in one place. The retention budgets an
// operator may size are in Limits (kernel flags set them).
const (
	// RingSize is the most events one stream retains for reads, replay
	// and delivery to subscribers that lag; its byte budget may keep
	// fewer.
	RingSize = 1024

	// MaxReadLimit is the most events one Read returns; larger limits
	// are clamped and a limit of zero or less means this many.
	MaxReadLimit = 1024

	// MaxSubscriptionsPerSubscriber bounds the subscriptions one
	// connection holds at once.
	MaxSubscriptionsPerSubscriber = 256

	// MaxChannelName bounds the length of a channel name in bytes.
	MaxChannelName = 128

	// RecordOverhead is what one retained event is charged beyond its
	// payload bytes, for its envelope and bookkeeping.
	RecordOverhead = 128

	// MaxSeq is the largest sequence number a stream gives out: the
	// largest integer JSON carries exactly (2^53-1). A stream that
	// reaches it refuses further publishes.
	MaxSeq = 1<<53 - 1

	// MaxSeedSeq is the largest cursor Resume continues numbering after,
	// leaving room for 2^52 further events below MaxSeq.
	MaxSeedSeq = 1 << 52

	// ReplayBatch is the most events a subscription with a Backfill
	// reads from its store at once and holds until its sink takes them.
	ReplayBatch = 32

	// RetryDelay is how long a subscription whose sink was full waits
	// before offering the event again; it doubles up to MaxRetryDelay
	// while the sink stays full.
	RetryDelay    = 5 * time.Millisecond
	MaxRetryDelay = 200 * time.Millisecond
)

// Budget names, as errors and docs give them (the kernel.Limits fields).
const (
	BudgetChannelBytes  = "event_channel_memory"
	BudgetScopeChannels = "event_channels"
	BudgetScopeBytes    = "event_session_memory"
	BudgetTotalBytes    = "event_memory"
)

// Limits are the bus's retention budgets. An event is charged its payload
// bytes plus RecordOverhead. Past a byte budget the oldest events are
// dropped (subscribers that had not received them get a dropped marker);
// an event larger than a byte budget on its own is refused.
type Limits struct {
	// ChannelBytes bounds what one stream retains; past it its oldest
	// events are dropped.
	ChannelBytes int64
	// ScopeChannels bounds the user.* and task.N streams of one scope
	// (render and session.transcript are not counted). Past it the least
	// recently used stream without subscribers is forgotten; when every
	// one has subscribers, creating another is refused.
	ScopeChannels int
	// ScopeBytes bounds what the streams of one scope retain together;
	// past it the scope's oldest events are dropped.
	ScopeBytes int64
	// TotalBytes bounds what every stream retains together; past it the
	// oldest events of the scope retaining the most are dropped.
	TotalBytes int64
}

// DefaultLimits returns the budgets the kernel starts with.
func DefaultLimits() Limits {
	return Limits{
		ChannelBytes:  4 << 20,
		ScopeChannels: 256,
		ScopeBytes:    16 << 20,
		TotalBytes:    256 << 20,
	}
}

// withDefaults fills budgets left at zero or below.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.ChannelBytes <= 0 {
		l.ChannelBytes = d.ChannelBytes
	}
	if l.ScopeChannels <= 0 {
		l.ScopeChannels = d.ScopeChannels
	}
	if l.ScopeBytes <= 0 {
		l.ScopeBytes = d.ScopeBytes
	}
	if l.TotalBytes <= 0 {
		l.TotalBytes = d.TotalBytes
	}
	return l
}
