package version

import "runtime/debug"

// Cgo reports whether this binary was built with cgo, from the
// CGO_ENABLED setting the go command records in the build information;
// known is false when the binary carries none. Shoal's binaries are meant
// to be pure Go (CGO_ENABLED=0): a cgo kernel starts its threads with
// pthread_create and libc's per-thread arenas, which fail under an
// address-space cap the pure-Go runtime lives within.
func Cgo() (cgo, known bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false, false
	}
	for _, s := range bi.Settings {
		if s.Key == "CGO_ENABLED" {
			return s.Value == "1", true
		}
	}
	return false, false
}
