package reclaim

import "time"

// Bounds on forced collections, set in one place.
const (
	// MinCollectInterval is the shortest time between two collections
	// Collect starts: a caller arriving sooner waits for the interval to
	// pass rather than being refused, so a charge is never failed just
	// because another session collected a moment ago, and the collector
	// still runs at most 1/MinCollectInterval times a second however many
	// charges fail.
	MinCollectInterval = 50 * time.Millisecond

	// CleanupWait bounds how long Collect waits, after a collection, for
	// the runtime to run the cleanups it queued (the releases of the
	// charges of dead values).
	CleanupWait = 200 * time.Millisecond
)
