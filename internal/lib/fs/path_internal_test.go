package fs

import (
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// TestFSPathAccessors: the pure path accessors on path text, called
// directly.
func TestFSPathAccessors(t *testing.T) {
	tests := []struct {
		path                    string
		name, stem, ext, parent string // inline renderings
	}{
		{"a.toml", `"a.toml"`, `"a"`, `"toml"`, "null"},
		{"sub/b.log", `"b.log"`, `"b"`, `"log"`, "sub"},
		{"README", `"README"`, `"README"`, "null", "null"},
		{".bashrc", `".bashrc"`, `".bashrc"`, "null", "null"},
		{"a.tar.gz", `"a.tar.gz"`, `"a.tar"`, `"gz"`, "null"},
		{"trail.", `"trail."`, `"trail"`, `""`, "null"},
		{"/", "null", "null", "null", "null"},
		{"/etc", `"etc"`, `"etc"`, "null", "/"},
		{"/etc/", `"etc"`, `"etc"`, "null", "/"},
		{"a/b/", `"b"`, `"b"`, "null", "a"},
		{"a//b", `"b"`, `"b"`, "null", "a"},
		{"./a.txt", `"a.txt"`, `"a"`, `"txt"`, "."},
		{"a/.", `"a"`, `"a"`, "null", "a"},
		{"..", "null", "null", "null", "null"},
		{".", "null", "null", "null", "null"},
		{"", "null", "null", "null", "null"},
		{"bad\xff.txt", "\"bad\uFFFD.txt\"", "\"bad\uFFFD\"", `"txt"`, "null"},
	}
	for _, tc := range tests {
		got := []string{
			value.Inline(bfsPathName(tc.path)),
			value.Inline(bfsPathStem(tc.path)),
			value.Inline(bfsPathExt(tc.path)),
			value.Inline(bfsPathParent(tc.path)),
		}
		want := []string{tc.name, tc.stem, tc.ext, tc.parent}
		for i, field := range []string{"name", "stem", "ext", "parent"} {
			if got[i] != want[i] {
				t.Errorf("path(%q).%s = %s, want %s", tc.path, field, got[i], want[i])
			}
		}
	}
}
