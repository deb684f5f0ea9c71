// Package procfs reads the few Linux /proc files the kernel consults about
// its own process: the mount table (/proc/self/mountinfo), which tells the
// cgroup hierarchies apart (memory limits, containment) and where procfs is
// mounted (the kernel's own process is never a target). It parses text
// only; what a mount means is its caller's business.
package procfs

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// MaxMountinfo bounds the bytes of a mount table read; mounts listed past
// it are not seen (a machine with tens of thousands of mounts).
const MaxMountinfo = 1 << 20

// maxMountLine bounds one line of a mount table; a longer line is skipped.
const maxMountLine = 64 << 10

// Mount is one line of a mount table, reduced to what callers use.
type Mount struct {
	Root      string // the mount's root within its filesystem (field 4)
	Point     string // where it is mounted (field 5)
	FSType    string // the filesystem type after the " - " separator
	SuperOpts string // the superblock options, comma-separated
}

// SuperOpt reports whether the mount's superblock options include opt.
func (m Mount) SuperOpt(opt string) bool {
	for o := range strings.SplitSeq(m.SuperOpts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// ReadMounts reads this process's mount table, at most MaxMountinfo bytes
// of it.
func ReadMounts() ([]Mount, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseMounts(io.LimitReader(f, MaxMountinfo))
}

// ParseMounts parses a mount table in the format of proc(5)'s mountinfo.
// Lines it cannot read (too long, too few fields, no separator) are
// skipped; the error is the reader's.
func ParseMounts(r io.Reader) ([]Mount, error) {
	var out []Mount
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := readLine(br)
		if pre, post, ok := strings.Cut(line, " - "); ok {
			f, g := strings.Fields(pre), strings.Fields(post)
			if len(f) >= 5 && len(g) >= 3 {
				out = append(out, Mount{Root: Unescape(f[3]), Point: Unescape(f[4]), FSType: g[0], SuperOpts: g[2]})
			}
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// readLine returns the next line without its newline, or "" for a line
// longer than maxMountLine (read through to its end and dropped).
func readLine(br *bufio.Reader) (string, error) {
	var b strings.Builder
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over && b.Len()+len(chunk) <= maxMountLine {
			b.Write(chunk)
		} else {
			over = true
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if over {
			return "", err
		}
		return strings.TrimSuffix(b.String(), "\n"), err
	}
}

// Unescape undoes the mount table's octal escapes (\040 for a space,
// \134 for a backslash); a backslash not followed by three octal digits
// stays as it is.
func Unescape(s string) string {
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
