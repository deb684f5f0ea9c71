package journal

import "time"

// Fixed bounds of the journal store. Each has a row in the limits table of
// docs/kernel.md.
const (
	// DefaultQueryLimit is the page size of a Query that names no Limit.
	DefaultQueryLimit = 100
	// MaxQueryLimit is the largest page a Query returns; a larger Limit is
	// clamped to it.
	MaxQueryLimit = 1000
	// MaxScopePrincipals is the most principals a Query's scope may list.
	MaxScopePrincipals = 256
	// MaxEffectFilter is the most effect kinds a Query's all-of filter may
	// name.
	MaxEffectFilter = 32
	// MaxCursorBytes is the longest cursor Query decodes.
	MaxCursorBytes = 64
	// MaxSrcBytes is the longest source an entry records.
	MaxSrcBytes = 1 << 20
	// MaxASTBytes is the largest AST (JSON) an entry records.
	MaxASTBytes = 4 << 20
	// MaxEffectsBytes is the largest effects list (JSON) an entry records.
	MaxEffectsBytes = 1 << 20
	// MaxEffectKinds is the most distinct effect kinds an entry records.
	MaxEffectKinds = 64
	// MaxOutputs is the most outputs an entry records.
	MaxOutputs = 16
	// MaxFieldBytes bounds every short text field (session, principal, cwd,
	// verdict, kinds, hashes).
	MaxFieldBytes = 4096
	// MaxHeadBytes is the longest head (first word of the source) stored.
	MaxHeadBytes = 256
	// BusyTimeout is how long a statement waits for SQLite's lock.
	BusyTimeout = 5 * time.Second
	// maxOpenConns bounds the connection pool (WAL: one writer, the rest
	// readers).
	maxOpenConns = 4
)
