package memlimit

import (
	"path"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/internal/procfs"
)

// cgroupWalkMax bounds the directories read walking from the process's
// cgroup up to its hierarchy's root.
const cgroupWalkMax = 64

// procCgroups reads /proc/self/cgroup: the v2 path ("" without one) and
// the v1 memory controller's path ("" without one).
func procCgroups(text string) (v2, v1mem string) {
	for line := range strings.SplitSeq(text, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case hasItem(parts[1], "memory"):
			v1mem = parts[2]
		}
	}
	return v2, v1mem
}

// hasItem reports whether the comma-separated list has item.
func hasItem(list, item string) bool {
	for it := range strings.SplitSeq(list, ",") {
		if it == item {
			return true
		}
	}
	return false
}

// cgroupLimit is the smallest memory limit on the way from the process's
// cgroup to its hierarchy's root, v2 and v1 both looked at; 0 when there
// is none. read returns a file's contents.
func cgroupLimit(procCgroup string, mounts []procfs.Mount, read func(string) (string, error)) uint64 {
	v2, v1 := procCgroups(procCgroup)
	var best uint64
	for _, m := range mounts {
		var cg, file string
		switch {
		case m.FSType == "cgroup2" && v2 != "":
			cg, file = v2, "memory.max"
		case m.FSType == "cgroup" && v1 != "" && m.SuperOpt("memory"):
			cg, file = v1, "memory.limit_in_bytes"
		default:
			continue
		}
		if n := walkLimit(m, cg, file, read); n > 0 && (best == 0 || n < best) {
			best = n
		}
	}
	return best
}

// walkLimit reads file in the directory of cgroup cg under mount m and in
// each parent up to the mount point, returning the smallest limit.
func walkLimit(m procfs.Mount, cg, file string, read func(string) (string, error)) uint64 {
	rel, ok := strings.CutPrefix(path.Clean(cg), path.Clean(m.Root))
	if !ok {
		// A cgroup namespace (or a bind mount of another part of the
		// tree): the mount point is the process's own cgroup.
		rel = "/"
	}
	dir := path.Join(m.Point, rel)
	var best uint64
	for range cgroupWalkMax {
		if s, err := read(path.Join(dir, file)); err == nil {
			if n := parseLimit(s); n > 0 && (best == 0 || n < best) {
				best = n
			}
		}
		if dir == path.Clean(m.Point) || dir == "/" || dir == "." {
			break
		}
		dir = path.Dir(dir)
	}
	return best
}

// parseLimit reads a cgroup limit file: "max" (v2) and the huge figure v1
// writes for no limit are 0, as is anything unreadable.
func parseLimit(s string) uint64 {
	s = strings.TrimSpace(s)
	if s == "" || s == "max" {
		return 0
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n >= 1<<62 {
		return 0
	}
	return n
}
