package host

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/procfs"
)

// FuzzSelfPathReason: the classifier never panics; a place beneath a
// refused one is refused; without "..", a path and its cleaned spelling
// get the same answer; /proc/self and its spellings are always refused;
// without "..", a path refused for one op is refused for its tree.
func FuzzSelfPathReason(f *testing.F) {
	for _, s := range []string{"/proc/self", "/proc//self/", "/proc/7/fd/1", "/proc/100/stat", "/dev/fd/0",
		"/proc/self/../self", "/proc/1/root/..", "/srv/p2/self", "/a/b/../c", "", "proc/self", "/proc/7/task/101/x"} {
		f.Add(s, "x")
	}
	prot := func(n int) bool { return n == 100 || n == 101 }
	roots := []string{"/proc", "/srv/p2"}
	f.Fuzz(func(t *testing.T, p, more string) {
		if len(p) > 4096 || len(more) > 256 {
			return
		}
		why := selfPathReason(p, roots, prot)
		if strings.Contains(more, "..") {
			more = ""
		}
		if why != "" && selfPathReason(p+"/"+more, roots, prot) == "" {
			t.Errorf("%q refused (%s) but %q beneath it is not", p, why, p+"/"+more)
		}
		if !slices.Contains(strings.Split(p, "/"), "..") {
			clean := path.Clean("/" + p)
			if (selfPathReason(clean, roots, prot) == "") != (why == "") {
				t.Errorf("%q and its clean form %q judged apart", p, clean)
			}
		}
		if clean := filepath.Clean("/" + p); clean == "/proc/self" || strings.HasPrefix(clean, "/proc/self/") {
			if !strings.Contains(p, "..") && why == "" {
				t.Errorf("%q (%q) passed", p, clean)
			}
		}
		if why != "" && !strings.Contains(p, "..") && treeReason(p, roots) == "" && !strings.HasPrefix(filepath.Clean("/"+p), "/dev/") {
			t.Errorf("%q refused but its tree is not", p)
		}
	})
}

// FuzzProcMounts: any mountinfo text gives absolute, clean mount points
// and never /proc itself, without panicking.
func FuzzProcMounts(f *testing.F) {
	f.Add("21 26 0:20 / /proc rw - proc proc rw\n30 26 0:20 / /srv/my\\040proc rw shared:1 - proc proc rw\n")
	f.Add("1 2 3 4 5 - proc\n")
	f.Fuzz(func(t *testing.T, text string) {
		mounts, _ := procfs.ParseMounts(strings.NewReader(text))
		for _, m := range procMounts(mounts) {
			if !filepath.IsAbs(m) || filepath.Clean(m) != m || m == "/proc" {
				t.Errorf("mount point %q", m)
			}
		}
		parseTgid([]byte(text))
	})
}
