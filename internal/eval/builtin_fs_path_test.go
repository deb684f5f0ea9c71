package eval

import (
	"context"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

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

func TestFSPathMethodsEval(t *testing.T) {
	bfsRun(t, host.NewOS(host.AllowAll), []bfsCase{
		{name: "join str", src: `path("a").join("b.txt").display()`, want: `"a/b.txt"`},
		{name: "join path", src: `path("a").join(path("b.txt")).display()`, want: `"a/b.txt"`},
		{name: "join trailing slash", src: `path("a/").join("b").display()`, want: `"a/b"`},
		{name: "join absolute replaces", src: `path("a").join("/etc").display()`, want: `"/etc"`},
		{name: "join int", src: `path("a").join(1)`, err: "type_error"},
		{name: "join arity", src: `path("a").join()`, err: "arg_error"},
		{name: "name call form", src: `path("sub/b.log").name()`, want: `"b.log"`},
		{name: "name takes no args", src: `path("a").name(1)`, err: "arg_error"},
		{name: "parent field chain", src: `path("x/sub/a.toml").parent.name`, want: `"sub"`},
		{name: "glob map stem", files: map[string]string{"a.toml": "", "b.toml": ""}, src: `glob("*.toml").map(.stem)`, want: `["a", "b"]`},
	})
}

func BenchmarkFSPathName(b *testing.B) {
	in, _ := bfsSession(b, host.NewOS(host.AllowAll), nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.Eval(ctx, `path("src/main.go").stem`); err != nil {
			b.Fatal(err)
		}
	}
}
