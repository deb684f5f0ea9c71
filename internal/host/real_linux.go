package host

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// realPathKernel asks the kernel itself to resolve p: it opens p with
// O_PATH (O_NOFOLLOW unless follow) and reads the descriptor's name back
// from /proc/self/fd, three system calls however deep p is. A missing
// final component is resolved through its parent; a dangling symlink is
// left to the walk. handled is false when
// this way cannot answer (no /proc, a permission error, a path that is not
// clean) and the caller should walk the components instead.
func realPathKernel(p string, follow bool) (real string, ok, handled bool) {
	if filepath.Clean(p) != p || !filepath.IsAbs(p) {
		return "", false, false
	}
	flags := unix.O_PATH | unix.O_CLOEXEC
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(p, flags, 0)
	switch {
	case err == nil:
		name, rerr := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		unix.Close(fd)
		if rerr != nil || !filepath.IsAbs(name) || strings.HasSuffix(name, " (deleted)") {
			return "", false, false
		}
		return name, true, true
	case errors.Is(err, unix.ELOOP):
		return "", false, true
	case errors.Is(err, unix.ENOENT):
		var st unix.Stat_t
		if p == "/" || unix.Lstat(p, &st) == nil {
			// p is there but does not open: a dangling symlink, whose
			// target the walk works out.
			return "", false, false
		}
		parent, ok, handled := realPathKernel(filepath.Dir(p), true)
		if !handled || !ok {
			return parent, ok, handled
		}
		return filepath.Join(parent, filepath.Base(p)), true, true
	}
	return "", false, false
}
