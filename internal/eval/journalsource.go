package eval

// The journal as the evaluator sees it: the host surface (the kernel)
// provides one through Options.Journal, and the journal library
// (internal/lib/journal: journal, history, undo) reads it through
// Context.Journal. The evaluator keeps no journal of its own.

import (
	"context"

	"github.com/shoalgo/shoal/internal/host"
)

// EffectJournalRead is the effect the journal builtins declare: reading
// the journal (policy's `journal_read`).
const EffectJournalRead host.Effect = "journal_read"

// JournalFilter selects journal entries. Zero fields do not filter.
type JournalFilter struct {
	Head      string // the first command word of the entry's source
	Principal string
	Session   string
	OK        *bool
	Since     int64    // start time, Unix ns, inclusive
	Until     int64    // start time, Unix ns, exclusive
	Effects   []string // effect kinds the entry must all have
	Limit     int      // at most this many, newest first; 0: JournalDefaultLimit
}

// JournalEntry is one journal row as the journal builtins see it.
type JournalEntry struct {
	ID        int64
	StartNS   int64 // when the entry started, Unix ns
	FinishNS  int64 // 0: it never finished
	Session   string
	Principal string
	Src       string
	OK        bool
	Status    *int     // exit status of the entry's last command; nil when none
	Effects   []string // effect kinds, in the order recorded
	// Undo are the inverse steps the entry's builtins recorded (the
	// UndoLog's Record); UndoLost, when not empty, says why the entry has
	// no complete inverse (it did something no step reverses), which
	// makes it irreversible.
	Undo     []UndoStep
	UndoLost string
	// Outputs are the entry's stored outputs (value, stdout, stderr),
	// each with the content ref that reads it back.
	Outputs []JournalOutput
}

// JournalOutput is one stored output of a journal entry: its kind
// ("value", "stdout" or "stderr"), its length in bytes as produced, and
// its content ref ("val:blake3:<hex>", see content_ref.go).
type JournalOutput struct {
	Kind string
	Len  int64
	Ref  string
}

// JournalSource is the journal a host surface provides to a session. It
// answers only rows the session's principal may read (its own, or all
// with journal_read_all) and asks its gate for journal_read before it
// answers anything, returning a `denied` language error when refused.
type JournalSource interface {
	// Query returns entries matching f, newest first, at most f.Limit.
	Query(ctx context.Context, f JournalFilter) ([]JournalEntry, error)
	// Entry returns one entry by id (a `not_found` language error when
	// there is none the caller may read).
	Entry(ctx context.Context, id int64) (JournalEntry, error)
	// Principal is the principal the session runs as; undo reverses only
	// that principal's entries.
	Principal() string
}
