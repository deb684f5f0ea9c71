package host

import "time"

// Bounds on the network operations (http.go),
// set in one place; see docs/kernel.md, "Limits".
const (
	// MaxHTTPBody is the most response body HTTP reads; a longer one is
	// ErrTooLarge and its connection is dropped.
	MaxHTTPBody = 64 << 20

	// HTTPTimeout bounds one request from dialling to the last body byte,
	// redirects included.
	HTTPTimeout = 30 * time.Second

	// MaxHTTPRedirects is how many redirects HTTP follows (each hop asked
	// net_connect of its own host:port) before it fails.
	MaxHTTPRedirects = 10

	// MaxHTTPHeaderBytes bounds the response header block.
	MaxHTTPHeaderBytes = 1 << 20
)
