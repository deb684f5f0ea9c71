package lineedit

// Bounds on what the line editor keeps, set in one place.
const (
	// DefaultHistorySize is how many entries the history keeps when the
	// options name no size; the oldest go first.
	DefaultHistorySize = 10_000

	// MaxHistorySize bounds a configured history size.
	MaxHistorySize = 1_000_000

	// MaxEntryBytes is the longest entry the history keeps: a longer one
	// (a pasted file) runs but is not remembered.
	MaxEntryBytes = 64 << 10

	// MaxHistoryFileBytes is how much of a history file is read: past it,
	// only its last MaxHistoryFileBytes are (the newest entries).
	MaxHistoryFileBytes = 16 << 20

	// maxIgnorePatterns and maxPatternBytes bound the history's ignore
	// patterns (History.SetIgnore).
	maxIgnorePatterns = 64
	maxPatternBytes   = 256

	// maxKeybindings bounds Options.Keybindings.
	maxKeybindings = 256
)
