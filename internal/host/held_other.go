//go:build !linux

package host

// Other platforms keep the old behaviour when gated: the gate judges the
// resolved path, then the operation acts on the path by name, so a
// symlink swapped in between is followed. Only Linux has openat2's
// RESOLVE_NO_SYMLINKS; see held.go.

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"
)

// heldFS says whether this build acts on held descriptors when gated.
const heldFS = false

// errNoHeld is never seen: held() is false on this platform, so none of
// the methods below is called.
var errNoHeld = errors.New("held file access is Linux only")

func (o *OS) heldFile(context.Context, Op, bool, int, uint32) (*os.File, error) {
	return nil, errNoHeld
}
func (o *OS) heldStat(context.Context, string, bool) (fs.FileInfo, error) { return nil, errNoHeld }
func (o *OS) heldReadDir(context.Context, string) ([]fs.DirEntry, error)  { return nil, errNoHeld }
func (o *OS) heldWrite(context.Context, string, []byte, bool) error       { return errNoHeld }
func (o *OS) heldMkdirAll(context.Context, string) error                  { return errNoHeld }
func (o *OS) heldRemove(context.Context, string, bool) error              { return errNoHeld }
func (o *OS) heldRename(context.Context, string, string) error            { return errNoHeld }
func (o *OS) heldLink(context.Context, string, string) error              { return errNoHeld }
func (o *OS) heldSymlink(context.Context, string, string) error           { return errNoHeld }
func (o *OS) heldCopy(context.Context, string, string, bool) error        { return errNoHeld }
func (o *OS) heldChtimes(context.Context, string, time.Time, time.Time) error {
	return errNoHeld
}
func (o *OS) heldGlob(context.Context, string, string, globPattern, bool) ([]string, error) {
	return nil, errNoHeld
}
func heldIdentity(string) ([2]uint64, error) { return [2]uint64{}, errNoHeld }

// sameFile is os.SameFile here: a host on this platform makes no held
// stats.
func sameFile(a, b fs.FileInfo) bool { return os.SameFile(a, b) }
