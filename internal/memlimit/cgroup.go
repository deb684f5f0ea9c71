package memlimit

import (
	"path"
	"strconv"
	"strings"
)

// cgroupWalkMax bounds the directories read walking from the process's
// cgroup up to its hierarchy's root.
const cgroupWalkMax = 64

// mountEntry is one line of /proc/self/mountinfo, reduced to what finding
// a cgroup hierarchy needs.
type mountEntry struct {
	root, point, fstype, opts string
}

// parseMountinfo reads the cgroup mounts of a mountinfo text.
func parseMountinfo(text string) []mountEntry {
	var out []mountEntry
	for line := range strings.SplitSeq(text, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 || (g[0] != "cgroup" && g[0] != "cgroup2") {
			continue
		}
		out = append(out, mountEntry{root: unescape(f[3]), point: unescape(f[4]), fstype: g[0], opts: g[2]})
	}
	return out
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

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
func cgroupLimit(procCgroup, mountinfo string, read func(string) (string, error)) uint64 {
	v2, v1 := procCgroups(procCgroup)
	var best uint64
	for _, m := range parseMountinfo(mountinfo) {
		var cg, file string
		switch {
		case m.fstype == "cgroup2" && v2 != "":
			cg, file = v2, "memory.max"
		case m.fstype == "cgroup" && v1 != "" && hasItem(m.opts, "memory"):
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
func walkLimit(m mountEntry, cg, file string, read func(string) (string, error)) uint64 {
	rel, ok := strings.CutPrefix(path.Clean(cg), path.Clean(m.root))
	if !ok {
		// A cgroup namespace (or a bind mount of another part of the
		// tree): the mount point is the process's own cgroup.
		rel = "/"
	}
	dir := path.Join(m.point, rel)
	var best uint64
	for range cgroupWalkMax {
		if s, err := read(path.Join(dir, file)); err == nil {
			if n := parseLimit(s); n > 0 && (best == 0 || n < best) {
				best = n
			}
		}
		if dir == path.Clean(m.point) || dir == "/" || dir == "." {
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
