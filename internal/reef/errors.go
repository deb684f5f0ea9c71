package reef

import "sort"

// Error codes, as the language reports them.
const (
	CodeUnlocked = "reef_unlocked"
	CodeDrift    = "reef_drift"
	CodeConflict = "reef_conflict"
	CodeNotFound = "reef_not_found"
	CodeProvider = "reef_provider"
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
