//go:build !linux

package procname

// Get is "": elsewhere a re-executed program keeps the name of the path it
// was started from.
func Get() string { return "" }

// Set does nothing where Get is "".
func Set(string) error { return nil }
