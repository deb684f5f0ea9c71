package host

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxSymlinkHops bounds the symlinks followed while resolving one path for
// authorisation (Linux's own limit is 40); a path needing more is refused.
const maxSymlinkHops = 40

// resolveFor fills in op.Real for the ops whose target is a path or a
// program: Target with its symlinks resolved, the way the kernel will
// resolve it (see realPath). follow says whether the operation follows a
// final symlink. Other ops are left alone. A path that resolves through
// more than maxSymlinkHops symlinks is refused.
func resolveFor(op *Op, follow bool) error {
	switch op.Effect {
	case FSRead, FSWrite, FSDelete, ProcSpawn:
	default:
		return nil
	}
	if !filepath.IsAbs(op.Target) {
		return nil
	}
	real, ok := realPath(op.Target, follow)
	if !ok {
		return Denied(*op, "path resolves through too many symbolic links")
	}
	op.Real = real
	return nil
}

// realPath resolves the symlinks of the absolute path p component by
// component, as the kernel does: ".." after a symlink pops the symlink's
// target, not the link's name. The longest existing prefix is resolved;
// from the first component that does not exist (or cannot be looked at)
// the rest is appended lexically. With follow false a final symlink is
// kept as it is (Lstat, Remove, Rename, new link names). ok is false past
// maxSymlinkHops.
func realPath(p string, follow bool) (string, bool) {
	if real, ok, handled := realPathKernel(p, follow); handled {
		return real, ok
	}
	return realPathWalk(p, follow)
}

// realPathWalk is realPath by lstat and readlink of each component.
func realPathWalk(p string, follow bool) (string, bool) {
	rest := splitPath(p)
	resolved := "/"
	hops := 0
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c == ".." {
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		if i == len(rest)-1 && !follow {
			return next, true
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, rest[i+1:]...)...), true
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		hops++
		if hops > maxSymlinkHops {
			return "", false
		}
		target, err := os.Readlink(next)
		if err != nil {
			return filepath.Join(append([]string{next}, rest[i+1:]...)...), true
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		rest = append(splitPath(target), rest[i+1:]...)
		i = -1
	}
	return resolved, true
}

// splitPath splits a path into its components, dropping empty ones and ".".
func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}
