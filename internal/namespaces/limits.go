package namespaces

// Bounds on what loading the layered configuration (configload.go) reads,
// set in one place.
const (
	// MaxConfigFileBytes is the largest configuration file a layer reads;
	// a larger one is an error naming the file (its reader stops there).
	MaxConfigFileBytes = 1 << 20

	// MaxConfigWalk bounds how many directories the search for the
	// nearest project .shoal.toml climbs from the working directory.
	MaxConfigWalk = 256
)
