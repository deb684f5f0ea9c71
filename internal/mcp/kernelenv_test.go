package mcp

import (
	"slices"
	"strings"
	"testing"
)

// TestKernelEnvAddsHome: a facade started without HOME gives the kernel
// it starts the user's home; one with HOME passes it unchanged.
func TestKernelEnvAddsHome(t *testing.T) {
	with := []string{"PATH=/bin", "HOME=/somewhere"}
	if got := kernelEnv(with); !slices.Equal(got, with) {
		t.Errorf("with HOME: %v", got)
	}
	got := kernelEnv([]string{"PATH=/bin"})
	if len(got) != 2 || !strings.HasPrefix(got[1], "HOME=/") {
		t.Errorf("without HOME: %v", got)
	}
}
