package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

// notLinked lists, per command, packages (an entry ending in "/" is a
// prefix) that must stay out of its transitive imports. Every package a
// binary links runs its init at every start, before main: `shoal -c 1`
// and each sandbox trampoline pay for it (docs/performance.md, "Cold
// start"). shoal runs `shoal mcp` by exec'ing shoal-mcp instead of
// linking the MCP SDK (with its JSON schema reflection, encoding/gob and
// OAuth packages), never opens the journal, and never forces a
// collection for a budget (internal/reclaim reads runtime/metrics, whose
// initialiser builds its metric table at every start), and links one TOML
// library (BurntSushi's reads /etc/localtime in its initialiser). No
// binary links github.com/klauspost/cpuid: its initialiser runs dozens of
// CPUID instructions, each a trap to the hypervisor on a KVM guest
// (internal/blake3 asks three, at its first large hash).
var notLinked = map[string][]string{
	"cmd/shoal": {
		module + "internal/mcp",
		module + "internal/kernel",
		module + "internal/journal",
		"github.com/modelcontextprotocol/",
		"github.com/google/jsonschema-go/",
		"encoding/gob",
		"modernc.org/",
		module + "internal/reclaim",
		"runtime/metrics",
		"github.com/BurntSushi/",
		"github.com/klauspost/cpuid/",
		"lukechampine.com/blake3",
	},
	"cmd/shoal-kernel": {
		"github.com/klauspost/cpuid/",
		"lukechampine.com/blake3",
	},
}

func TestStartupLinksOnlyWhatItUses(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	for cmd, banned := range notLinked {
		out, err := exec.Command(goTool, "list", "-deps", module+cmd).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", cmd, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s reported only %d packages", cmd, len(deps))
		}
		for _, dep := range deps {
			for _, b := range banned {
				if dep == b || strings.HasSuffix(b, "/") && strings.HasPrefix(dep, b) {
					t.Errorf("%s links %s, which it never uses at start: keep it out (see notLinked)", cmd, dep)
				}
			}
		}
	}
}
