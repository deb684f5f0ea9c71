package journal

// The journal library's bounds.
const (
	// DefaultLimit is how many entries journal and history show without
	// --limit; MaxLimit is the most --limit may ask for, and
	// MaxEffectFilters the most --effect filters one call takes.
	DefaultLimit     = 50
	MaxLimit         = 1000
	MaxEffectFilters = 16

	// MaxUndoScan is how many of the principal's newest journal entries
	// `undo` without an id looks through for one it can reverse.
	MaxUndoScan = 64
)
