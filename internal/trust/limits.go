package trust

// Bounds on the trust store, set in one place (docs/kernel.md, "Limits").
const (
	// MaxEntries bounds the directories the store records; trusting one
	// more is refused until some are revoked.
	MaxEntries = 4096
	// MaxStoreBytes bounds the store file; a larger one is malformed.
	MaxStoreBytes = 4 << 20
	// MaxDirBytes bounds one recorded directory's path.
	MaxDirBytes = 4096
	// maxSumBytes bounds one file's recorded sum (64 hex digits, or a
	// marker such as "too-large:N").
	maxSumBytes = 80
)
