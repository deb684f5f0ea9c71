//go:build !linux

package host

import (
	"context"
	"errors"
	"syscall"

	"github.com/shoalgo/shoal/internal/contain"
)

// directSpawn: only Linux has the direct path; Run uses os/exec elsewhere.
const directSpawn = false

func (o *OS) runDirect(context.Context, contain.Thread, string, []string, []string, string, *capture, *capture) (int, syscall.WaitStatus, error) {
	return 0, 0, errors.New("run: no direct spawn on this system")
}
