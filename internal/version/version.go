// Package version says which build of Shoal this is: one string for every
// binary's --version line, kernel.info and the MCP facade's server info.
//
// The string is, first found:
//
//  1. the link-time stamp, for a release or packaged build:
//     go build -ldflags "-X github.com/shoalgo/shoal/internal/version.stamped=v0.2.0" ./cmd/...
//  2. built from a git checkout (the go command records vcs.revision):
//     the checkout's tag when the go command found one (v0.2.0), else the
//     revision's first 12 hex digits, with "-dirty" when the tree had
//     uncommitted changes;
//  3. the module version the go command recorded for `go install
//     github.com/shoalgo/shoal/cmd/...@v0.2.0` (or a pseudo-version for
//     @commit), which carries no VCS information;
//  4. "dev": a build with neither (go run, -buildvcs=false, a tarball).
package version

import (
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// stamped is set at link time (see the package comment).
var stamped string

// shortRevision is how many hex digits of a commit hash the version
// shows: as many as a Go pseudo-version carries.
const shortRevision = 12

// String is the build's version (see the package comment).
func String() string {
	if stamped != "" {
		return stamped
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return fromBuildInfo(bi)
}

// Line is NAME's --version line, the same shape for every binary:
// "shoal-kernel v0.2.0 (go1.26.8 linux/amd64)".
func Line(name string) string {
	return fmt.Sprintf("%s %s (%s %s/%s)", name, String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// pseudo matches the tail of a Go pseudo-version, the timestamp and the
// 12-digit revision (vX.0.0-20260102150405-abcdef123456, v1.2.4-0.2026…,
// v1.2.3-pre.0.2026…), before any +build suffix.
// Compiled when first needed: not at every start of every binary (and by a
// sync.Once: a sync.OnceValue's closure is made by a package initialiser).
func pseudo() *regexp.Regexp {
	pseudoRE.Do(func() { pseudoRE.re = regexp.MustCompile(`[-.]\d{14}-[0-9a-f]{12}(\+.*)?$`) })
	return pseudoRE.re
}

var pseudoRE struct {
	sync.Once
	re *regexp.Regexp
}

// fromBuildInfo derives the version from what the go command recorded.
func fromBuildInfo(bi *debug.BuildInfo) string {
	mod := bi.Main.Version
	if mod == "(devel)" {
		mod = ""
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		v := mod
		// The go command (1.24 on) sets Main.Version from the checkout:
		// the tag it sits on, else a pseudo-version, each with +dirty when
		// modified. A tag is kept; a pseudo-version says no more than the
		// revision does.
		v, _, _ = strings.Cut(v, "+")
		if v == "" || pseudo().MatchString(v) {
			v = rev
			if len(v) > shortRevision {
				v = v[:shortRevision]
			}
		}
		if dirty {
			v += "-dirty"
		}
		return v
	}
	if mod != "" {
		return mod
	}
	return "dev"
}
