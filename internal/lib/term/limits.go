package term

// The terminal library's bounds.
const (
	// MaxPickLine bounds the answer `.pick` reads from the terminal;
	// MaxPickShown is how many items its menu lists (larger numbers are
	// still accepted), MaxPickWidth the runes of one item's line, and
	// MaxPickTries how many bad answers it asks again after.
	MaxPickLine  = 4096
	MaxPickShown = 500
	MaxPickWidth = 120
	MaxPickTries = 5
)
