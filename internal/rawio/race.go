//go:build race

package rawio

// Race reports a build with the race detector (see the package comment).
const Race = true
