// Package version says which build of Shoal this is: one string for every
// binary's --version, kernel.info and the MCP facade's server info.
package version

import "runtime/debug"

// stamped is set at link time for a release build:
//
//	go build -ldflags "-X github.com/shoalgo/shoal/internal/version.stamped=v0.2.0" ./cmd/...
var stamped string

// String is the build's version: the stamped one; else the module
// version the go command recorded (a tagged `go install …@v0.2.0`); else
// "dev", for a build of an untagged tree.
func String() string {
	if stamped != "" {
		return stamped
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
