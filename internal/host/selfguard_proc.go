package host

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// MaxMountinfo bounds the bytes of /proc/self/mountinfo ProcRoots reads;
// procfs mounts listed past it are not seen (a machine with thousands of
// mounts), and /proc always counts.
const MaxMountinfo = 1 << 20

// ProcRoots are the mount points of procfs in this process's mount
// namespace, read from /proc/self/mountinfo: always "/proc", and any other
// place procfs is mounted (a container's second /proc, a bind mount), so
// that the kernel's own process is not reachable under another name.
func ProcRoots() []string {
	roots := []string{"/proc"}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return roots
	}
	defer f.Close()
	return append(roots, procMounts(io.LimitReader(f, MaxMountinfo))...)
}

// procMounts lists the mount points of the procfs lines of a mountinfo
// text, unescaped and cleaned, without "/proc".
func procMounts(r io.Reader) []string {
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := slices.Index(fields, "-")
		if sep < 5 || sep+1 >= len(fields) || fields[sep+1] != "proc" {
			continue
		}
		mp := filepath.Clean(unescapeMount(fields[4]))
		if mp != "/proc" && filepath.IsAbs(mp) && !slices.Contains(out, mp) {
			out = append(out, mp)
		}
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, …).
func unescapeMount(s string) string {
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
