package leash_test

import "testing"

// TestSymlinkTargetResolvesAgainstTheLink checks that `ln -s` judges its
// target where the kernel will resolve it: a relative target against the
// directory holding the link, not the working directory (/work/proj).
func TestSymlinkTargetResolvesAgainstTheLink(t *testing.T) {
	tests := []struct{ src, want string }{
		// The example of issue 22: from the working directory the target
		// would be /work/outside; from the link's directory it is inside.
		{"ln -s ../outside sub/t", "fs_read:/work/proj/outside fs_write:/work/proj/sub/t"},
		// And the converse: harmless from the working directory, outside
		// from the link's.
		{"ln -s ../secret /work/t", "fs_read:/secret fs_write:/work/t"},
		{"ln -s ../../etc/passwd /work/proj/a/t", "fs_read:/work/etc/passwd fs_write:/work/proj/a/t"},
		{"ln -s x.txt /tmp/l", "fs_read:/tmp/x.txt fs_write:/tmp/l"},
		{"ln -s /etc/passwd t", "fs_read:/etc/passwd fs_write:/work/proj/t"},
		{"ln -s '../o' \"/a/b/l\"", "fs_read:/a/o fs_write:/a/b/l"},
		{"ln -s (path(\"../o\")) /a/b/l", "fs_read:/a/o fs_write:/a/b/l"},
		{"ln --symbolic ../o /a/b/l", "fs_read:/a/o fs_write:/a/b/l"},
		// ln stores the text: "~" is not the home directory here.
		{"ln -s ~/x /a/l", "fs_read:/a/~/x fs_write:/a/l"},
		// A target known only at run time is a dynamic read.
		{"ln -s (s) /a/l", "fs_read:symlink target? fs_write:/a/l"},
		// Hard links name an existing file, resolved like any path.
		{"ln ../a.txt sub/h", "fs_read:/work/a.txt fs_write:/work/proj/sub/h"},
	}
	for _, tt := range tests {
		if got := show(derive(t, tt.src)); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}
