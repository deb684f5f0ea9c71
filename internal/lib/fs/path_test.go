package fs_test

import (
	"context"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/libtest"
)

func TestFSPathMethodsEval(t *testing.T) {
	libtest.Run(t, host.NewOS(host.AllowAll), []libtest.Case{
		{Name: "join str", Src: `path("a").join("b.txt").display()`, Want: `"a/b.txt"`},
		{Name: "join path", Src: `path("a").join(path("b.txt")).display()`, Want: `"a/b.txt"`},
		{Name: "join trailing slash", Src: `path("a/").join("b").display()`, Want: `"a/b"`},
		{Name: "join absolute replaces", Src: `path("a").join("/etc").display()`, Want: `"/etc"`},
		{Name: "join int", Src: `path("a").join(1)`, Err: "type_error"},
		{Name: "join arity", Src: `path("a").join()`, Err: "arg_error"},
		{Name: "name call form", Src: `path("sub/b.log").name()`, Want: `"b.log"`},
		{Name: "name takes no args", Src: `path("a").name(1)`, Err: "arg_error"},
		{Name: "parent field chain", Src: `path("x/sub/a.toml").parent.name`, Want: `"sub"`},
		{Name: "glob map stem", Files: map[string]string{"a.toml": "", "b.toml": ""}, Src: `glob("*.toml").map(.stem)`, Want: `["a", "b"]`},
	})
}

func BenchmarkFSPathName(b *testing.B) {
	in, _ := libtest.Session(b, host.NewOS(host.AllowAll), nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.Eval(ctx, `path("src/main.go").stem`); err != nil {
			b.Fatal(err)
		}
	}
}
