package reef

import (
	"encoding/hex"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/shoalgo/shoal/internal/blake3"
)

// ViewFS is the file access building a view needs.
type ViewFS interface {
	Stat(path string) (fs.FileInfo, error)
	MkdirAll(path string) error
	Symlink(target, link string) error
	Rename(from, to string) error
	RemoveAll(path string) error
}

// ViewKey addresses a binding set: a digest of its sorted name → path
// pairs, independent of map order.
func ViewKey(links map[string]string) string {
	names := make([]string, 0, len(links))
	for n := range links {
		names = append(names, n)
	}
	sort.Strings(names)
	h := blake3.New(32, nil)
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%s\n", n, links[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// BuildView returns root/<key>/bin, a directory holding one symlink per
// tool to its bound path, building it when absent: in a staging sibling
// renamed into place, so builders that race converge on one directory.
// Names that are not plain file names are left out. root should be
// private to the user (the caller passes $XDG_RUNTIME_DIR/shoal/views):
// an existing view there is reused as it stands.
func BuildView(fsys ViewFS, root string, links map[string]string, nonce int64) (string, error) {
	if len(links) > MaxTools {
		return "", fmt.Errorf("view of %d tools: more than %d", len(links), MaxTools)
	}
	key := ViewKey(links)
	final := filepath.Join(root, key)
	bin := filepath.Join(final, "bin")
	if fi, err := fsys.Stat(bin); err == nil && fi.IsDir() {
		return bin, nil
	}
	stage := filepath.Join(root, ".stage-"+key+"-"+strconv.FormatInt(nonce, 36))
	if err := fsys.MkdirAll(filepath.Join(stage, "bin")); err != nil {
		return "", err
	}
	for n, p := range links {
		if n == "" || n == "." || n == ".." || filepath.Base(n) != n || !filepath.IsAbs(p) {
			continue
		}
		if err := fsys.Symlink(p, filepath.Join(stage, "bin", n)); err != nil {
			_ = fsys.RemoveAll(stage)
			return "", err
		}
	}
	if err := fsys.Rename(stage, final); err != nil {
		_ = fsys.RemoveAll(stage)
		if fi, serr := fsys.Stat(bin); serr == nil && fi.IsDir() {
			return bin, nil // another builder won
		}
		return "", err
	}
	return bin, nil
}
