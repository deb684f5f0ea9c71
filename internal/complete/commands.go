package complete

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// MaxPathCommands bounds the program names PathCommandNames lists.
const MaxPathCommands = 20_000

// maxPathDirs bounds the PATH entries PathCommandNames reads.
const maxPathDirs = 256

// PathCommandNames lists the executable files in the directories of path
// (a PATH value, `:`-separated), sorted, each once, at most
// MaxPathCommands, reading each directory through readDir (the caller's
// gate). Relative entries are skipped (the current directory is not
// where a shell finds programs); an unreadable directory is skipped.
func PathCommandNames(path string, readDir func(dir string) ([]fs.DirEntry, error)) []string {
	if readDir == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	dirs := strings.Split(path, ":")
	if len(dirs) > maxPathDirs {
		dirs = dirs[:maxPathDirs]
	}
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		ents, err := readDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			name := e.Name()
			if seen[name] || strings.HasPrefix(name, ".") || !executable(e) {
				continue
			}
			seen[name] = true
			out = append(out, name)
			if len(out) == MaxPathCommands {
				sort.Strings(out)
				return out
			}
		}
	}
	sort.Strings(out)
	return out
}

// executable reports a regular file (or a link, taken on trust: it is
// resolved when run) with an execute bit.
func executable(e fs.DirEntry) bool {
	t := e.Type()
	if t&fs.ModeSymlink != 0 {
		return true
	}
	if !t.IsRegular() {
		return false
	}
	info, err := e.Info()
	if err != nil {
		return false
	}
	return info.Mode().Perm()&0o111 != 0
}
