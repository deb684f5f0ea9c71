package events

// Bounds of the event bus, set in one place.
const (
	// RingSize is the number of newest events kept per stream for reads
	// and replay.
	RingSize = 1024

	// MaxReadLimit is the most events one Read returns; larger limits
	// are clamped and a limit of zero or less means this many.
	MaxReadLimit = 1024

	// QueueSize is the number of events queued for one subscription
	// before further events are coalesced into a dropped marker.
	QueueSize = 256

	// MaxChannelsPerScope bounds the streams one scope keeps. Creating
	// one more forgets the least recently used stream that has no
	// subscribers.
	MaxChannelsPerScope = 1024

	// MaxSubscriptionsPerSubscriber bounds the subscriptions one
	// connection holds at once.
	MaxSubscriptionsPerSubscriber = 256

	// MaxChannelName bounds the length of a channel name in bytes.
	MaxChannelName = 128
)

// Limits are the bus's tunable retention budgets (kernel flags set them;
// see kernel.Limits). Payload bytes are counted with a fixed overhead of
// RecordOverhead per event.
type Limits struct {
	// ChannelBytes bounds what one stream retains; past it its oldest
	// events are dropped.
	ChannelBytes int64
	// ScopeChannels bounds the user.* and task.N streams of one scope.
	// Past it the least recently used stream without subscribers is
	// forgotten; when every one has subscribers, creating another is
	// refused with a *QuotaError.
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
