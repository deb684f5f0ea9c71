package main

import (
	"os"
	"os/exec"
)

// goBuild is `go build ARGS…` for the binaries these tests run: pure Go
// (CGO_ENABLED=0), as the README builds them, whatever the test binary
// itself was built with (-race needs cgo).
func goBuild(args ...string) *exec.Cmd {
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd
}
