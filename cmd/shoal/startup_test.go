package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// What the package initialisers of the built shoal may allocate before main
// runs, as GODEBUG=inittrace=1 reports it for `shoal -c 1`. Every start of
// shoal pays for them, so registries, tables and compiled patterns are
// built on first use instead (docs/performance.md, "Cold start"). When this
// project's packages went lazy their share fell from 5,052 allocations
// (217 kB) to about 210 (18 kB), and the whole binary's from 7,193 (479 kB)
// to about 1,400 (153 kB); with one TOML library and no runtime/metrics
// (the seventh round) they are 153 (15 kB) and 1,238 (132 kB). The bounds
// leave room for a few small tables, not for a registry, a compiled regexp
// or a new dependency's initialiser.
const (
	maxOwnInitAllocs = 200
	maxOwnInitBytes  = 20 << 10
	maxAllInitAllocs = 1300
)

var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// initTrace runs the built `shoal -c 1` in a fresh home with
// GODEBUG=inittrace=1 and returns what it wrote to stderr: a line per
// package initialiser, in the order they ran.
func initTrace(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(binaries(t), "shoal")
	home := t.TempDir()
	cmd := exec.Command(bin, "-c", "1")
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "GODEBUG=inittrace=1"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil || string(out) != "1\n" {
		t.Fatalf("shoal -c 1: %q, %v\n%s", out, err, stderr.String())
	}
	return stderr.String()
}

// TestStartupInitBudget: `shoal -c 1`'s package initialisers stay within
// the allocation bounds above (counts, never times).
func TestStartupInitBudget(t *testing.T) {
	trace := initTrace(t)
	var ownAllocs, ownBytes, allAllocs, lines int
	for line := range strings.Lines(trace) {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		lines++
		bytes, _ := strconv.Atoi(m[2])
		allocs, _ := strconv.Atoi(m[3])
		allAllocs += allocs
		if strings.HasPrefix(m[1], "github.com/shoalgo/shoal/") {
			ownAllocs += allocs
			ownBytes += bytes
			if allocs > maxOwnInitAllocs/4 { // one package may not take the whole budget
				t.Errorf("%s allocates %d times at init", m[1], allocs)
			}
		}
	}
	if lines < 20 {
		t.Fatalf("only %d init lines in GODEBUG=inittrace=1 output:\n%s", lines, trace)
	}
	t.Logf("%d initialisers; this project's: %d allocations, %d bytes; all: %d allocations", lines, ownAllocs, ownBytes, allAllocs)
	if ownAllocs > maxOwnInitAllocs || ownBytes > maxOwnInitBytes {
		t.Errorf("this project's initialisers allocate %d times, %d bytes: the bound is %d, %d", ownAllocs, ownBytes, maxOwnInitAllocs, maxOwnInitBytes)
	}
	if allAllocs > maxAllInitAllocs {
		t.Errorf("all initialisers allocate %d times: the bound is %d (a new dependency initialising at start?)", allAllocs, maxAllInitAllocs)
	}
}

// initFree lists packages of `shoal -c 1` that must have no initialiser at
// all (GODEBUG=inittrace=1 names every package with one, even one that only
// makes a sync.OnceValue's closure or a map literal): whatever an
// initialiser runs, it first touches its package's code and data, a page
// fault or two at ~13 µs each on this project's test VM; together this
// project's were 0.15-0.25 ms of CPU and 12-14 faults a start
// (docs/performance.md, "Cold start: the nineteenth round"). Tables are
// switches or static arrays, lazily built values sit behind a sync.Once
// (not sync.OnceValue), and error texts are literals. internal/blake3
// detects the CPU's SIMD features at its first large hash, by three CPUIDs;
// upstream's github.com/klauspost/cpuid ran dozens at init, each a trap to
// the hypervisor on a KVM guest, and must not come back. Left with an
// initialiser: startstack (its purpose), and syntax, value, namespaces and
// eval, whose pages `-c` touches anyway.
var initFree = []string{
	"github.com/shoalgo/shoal/internal/blake3",
	"github.com/klauspost/cpuid/v2",
	"lukechampine.com/blake3",
	"github.com/shoalgo/shoal/proto",
	"github.com/shoalgo/shoal/client",
	"github.com/shoalgo/shoal/internal/host",
	"github.com/shoalgo/shoal/internal/contain",
	"github.com/shoalgo/shoal/internal/sandbox",
	"github.com/shoalgo/shoal/internal/policy",
	"github.com/shoalgo/shoal/internal/userconfig",
	"github.com/shoalgo/shoal/internal/lsp",
	"github.com/shoalgo/shoal/internal/adapters",
	"github.com/shoalgo/shoal/internal/complete",
	"github.com/shoalgo/shoal/internal/reef",
	"github.com/shoalgo/shoal/internal/version",
}

// TestStartupInitFree: no package of initFree runs an initialiser in
// `shoal -c 1`.
func TestStartupInitFree(t *testing.T) {
	trace := initTrace(t)
	lines := 0
	for line := range strings.Lines(trace) {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		lines++
		for _, p := range initFree {
			if m[1] == p || strings.HasPrefix(m[1], p+"/") {
				t.Errorf("%s runs an initialiser at every start (%s)", m[1], strings.TrimSpace(line))
			}
		}
	}
	if lines < 20 {
		t.Fatalf("only %d init lines in GODEBUG=inittrace=1 output:\n%s", lines, trace)
	}
}
