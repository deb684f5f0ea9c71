package prompt

import (
	"path/filepath"
	"strings"
)

// Bounds on the git lookup.
const (
	// MaxWalkUp bounds the directories GitBranch looks at on its way up.
	MaxWalkUp = 128
	// MaxHeadBytes bounds what is read of .git and HEAD.
	MaxHeadBytes = 4096
)

// ReadFile reads at most limit bytes of a regular file (the caller's, so
// the package touches nothing).
type ReadFile func(path string, limit int) ([]byte, error)

// GitBranch finds the repository holding dir by walking up to the first
// `.git` (a directory, or a file `gitdir: PATH` as worktrees and
// submodules have) and reads its HEAD: the branch for `ref: refs/heads/X`,
// the first 7 hex digits of a detached commit, "" outside a repository or
// on anything unreadable. It never runs git.
func GitBranch(dir string, read ReadFile) string {
	dir = filepath.Clean(dir)
	for range MaxWalkUp {
		dotgit := filepath.Join(dir, ".git")
		if head, err := read(filepath.Join(dotgit, "HEAD"), MaxHeadBytes); err == nil {
			return parseHead(head)
		}
		if data, err := read(dotgit, MaxHeadBytes); err == nil {
			if gd, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:"); ok {
				gd = strings.TrimSpace(gd)
				if !filepath.IsAbs(gd) {
					gd = filepath.Join(dir, gd)
				}
				if head, err := read(filepath.Join(gd, "HEAD"), MaxHeadBytes); err == nil {
					return parseHead(head)
				}
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

// parseHead reads a HEAD file's contents.
func parseHead(b []byte) string {
	s := strings.TrimSpace(string(b))
	if ref, ok := strings.CutPrefix(s, "ref:"); ok {
		ref = strings.TrimSpace(ref)
		if br, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			return clean(br)
		}
		return clean(ref)
	}
	if len(s) >= 7 && isHex(s) {
		return s[:7]
	}
	return ""
}

// clean drops what a terminal would act on from a name read from disk.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
