//go:build !amd64

package blake3

import "testing"

// eachPath: only the generic path exists off amd64.
func eachPath(t *testing.T, test func(*testing.T)) { test(t) }
