package host

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/shoalgo/shoal/internal/procfs"
)

// ProcRoots are the mount points of procfs in this process's mount
// namespace, read from /proc/self/mountinfo: always "/proc", and any other
// place procfs is mounted (a container's second /proc, a bind mount), so
// that the kernel's own process is not reachable under another name. At
// most procfs.MaxMountinfo bytes of the table are read.
func ProcRoots() []string {
	mounts, _ := procfs.ReadMounts()
	return append([]string{"/proc"}, procMounts(mounts)...)
}

// procMounts lists the mount points of the procfs mounts, cleaned,
// without "/proc".
func procMounts(mounts []procfs.Mount) []string {
	var out []string
	for _, m := range mounts {
		if m.FSType != "proc" {
			continue
		}
		mp := filepath.Clean(m.Point)
		if mp != "/proc" && filepath.IsAbs(mp) && !slices.Contains(out, mp) {
			out = append(out, mp)
		}
	}
	return out
}

// readTgid reads the thread group of thread n from /proc/<n>/status; ok is
// false when it cannot be read.
func readTgid(n int) (int, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(n) + "/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	buf := make([]byte, maxTgidScan)
	m, _ := io.ReadFull(f, buf)
	return parseTgid(buf[:m])
}

// walkReason walks the symlinks of the absolute path p as the kernel
// would, like realPathWalk, and judges every place the walk reaches (each
// component as resolved so far, each link's target), returning the first
// refusal: a chain of the principal's own links through /proc/self/fd/N
// ends at the descriptor's file, whose name alone looks harmless, but
// passes through the kernel's /proc on the way. With follow false a final
// symlink is not followed. A missing component ends the walk (the rest is
// lexical, judged by the caller); past maxSymlinkHops it refuses.
func walkReason(p string, follow bool, judge func(place string) string) string {
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
		if why := judge(next); why != "" {
			return why
		}
		if i == len(rest)-1 && !follow {
			return ""
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return ""
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		hops++
		if hops > maxSymlinkHops {
			return "the path resolves through too many symbolic links"
		}
		target, err := os.Readlink(next)
		if err != nil {
			return ""
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		rest = append(splitPath(target), rest[i+1:]...)
		i = -1
	}
	return judge(resolved)
}

// followsFinal reports whether an op whose resolved path is real followed
// its final symlink: the host resolves a following op completely, so a
// Real that is itself a symlink belongs to an op that does not follow
// (Lstat, Remove, Rename, a new link's name).
func followsFinal(real string) bool {
	fi, err := os.Lstat(real)
	return err != nil || fi.Mode()&fs.ModeSymlink == 0
}
