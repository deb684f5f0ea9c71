//go:build !linux && !darwin && !freebsd

package kernel

import (
	"errors"
	"net"
)

// peerUID cannot learn the peer's uid on this platform, so every peer is
// refused.
func peerUID(*net.UnixConn) (int, error) {
	return -1, errors.New("peer credentials are not supported on this platform")
}
