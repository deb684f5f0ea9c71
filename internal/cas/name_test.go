package cas

import (
	"encoding/hex"
	"testing"

	"lukechampine.com/blake3"
)

// TestNameOneAllocation checks that a hash's name is the prefix and the
// digits, made in one allocation.
func TestNameOneAllocation(t *testing.T) {
	sum := blake3.Sum256([]byte("2"))
	if got, want := name(sum), Prefix+hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("name = %q, want %q", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { _ = name(sum) }); n > 1 {
		t.Errorf("name allocates %v times, want 1", n)
	}
}
