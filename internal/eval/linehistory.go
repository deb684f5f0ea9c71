package eval

// The REPL's typed lines, which the journal library's `history` shows
// when the session has no journal (Context.LineHistory).

// SetLineHistory gives the session the REPL's line history (entries
// oldest first), which `history` shows when the session has no journal.
// Call it before the session runs anything.
func (in *Interp) SetLineHistory(lines func() []string) { in.lineHistory = lines }
