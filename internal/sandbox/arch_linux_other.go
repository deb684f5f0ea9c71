//go:build linux && !amd64 && !arm64

package sandbox

// No socket filter is written for this architecture, so Probe reports
// the network as not enforced (Landlock's TCP rules alone can be
// bypassed: see netfilter_linux.go).
const (
	auditArch = 0
	x32Bit    = 0
)
