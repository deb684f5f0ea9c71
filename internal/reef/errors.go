package reef

import "sort"

// Error codes, as the language reports them.
const (
	CodeUnlocked = "reef_unlocked"
	CodeDrift    = "reef_drift"
	CodeConflict = "reef_conflict"
	CodeNotFound = "reef_not_found"
	CodeProvider = "reef_provider"
	// CodeLockPath is a lock entry naming a program where its provider
	// would never find one (an absolute path outside the project, say).
	CodeLockPath = "reef_lock_path"
	// CodeUntrusted is a write Reef refused because the directory's
	// project files are not trusted.
	CodeUntrusted = "reef_untrusted"
)

// Error is a Reef failure with its stable code.
type Error struct {
	Code string
	Tool string
	Msg  string
	Hint string
}

func (e *Error) Error() string { return e.Code + ": " + e.Msg }

func sortStrings(s []string) { sort.Strings(s) }
