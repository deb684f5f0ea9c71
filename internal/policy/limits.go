package policy

// Fixed bounds of the policy loader and matcher. A policy file is written by
// the operator, but it is still input: these keep a hostile or mistaken file
// from costing unbounded memory or time.
const (
	// MaxFileBytes is the largest policy file Load reads.
	MaxFileBytes = 1 << 20
	// MaxPrincipals is how many principals one file may define.
	MaxPrincipals = 1024
	// MaxGrantsPerList bounds each grant list (fs.read, net_connect, ...).
	MaxGrantsPerList = 4096
	// MaxGlobBytes bounds one path glob (after ~ expansion) and one
	// host glob.
	MaxGlobBytes = 4096
	// MaxGlobSegments bounds the path segments of one glob; matching costs
	// at most segments(glob) x segments(path) segment matches.
	MaxGlobSegments = 256
)
