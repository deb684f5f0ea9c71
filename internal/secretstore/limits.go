package secretstore

// Bounds on the store, set in one place (docs/kernel.md, "Limits").
const (
	// MaxBytes is the largest secret Read returns and Set stores.
	MaxBytes = 64 << 10

	// MaxName bounds a secret's name.
	MaxName = 255

	// MaxList bounds how many names List reports (the rest are counted).
	MaxList = 10000
)
