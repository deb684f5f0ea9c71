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
