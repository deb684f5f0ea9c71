package stdlib

import (
	"slices"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/lib/fs"
	"github.com/shoalgo/shoal/internal/lib/nav"
	"github.com/shoalgo/shoal/internal/value"
)

// TestFileSystemIsTheLibrarys: the file system's commands, functions and
// path methods are internal/lib/fs's entries and pwd is internal/lib/nav's;
// eval's own parts define none of them (issue 25, acceptance 2).
func TestFileSystemIsTheLibrarys(t *testing.T) {
	own, err := eval.NewRegistry(eval.Parts()...)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := eval.NewRegistry(fs.Part(), nav.Part())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"ls", "stat", "cat", "head", "open", "rm", "mkdir", "touch", "cp", "mv", "ln", "save", "pwd"} {
		if own.IsBuiltin(n) {
			t.Errorf("eval still defines the builtin %s", n)
		}
		if !lib.IsBuiltin(n) {
			t.Errorf("the library does not define the builtin %s", n)
		}
	}
	for _, n := range []string{"watch", "tail"} {
		if slices.Contains(own.FuncNames(), n) || !slices.Contains(lib.FuncNames(), n) {
			t.Errorf("function %s: want it the library's, not eval's", n)
		}
	}
	for _, n := range []string{"name", "stem", "ext", "parent", "join", "exists", "is_file", "is_dir", "size", "read", "read_bytes", "lines", "abs", "modified"} {
		if slices.Contains(own.MethodNames(value.KPath), n) || !slices.Contains(lib.MethodNames(value.KPath), n) {
			t.Errorf("path method %s: want it the library's, not eval's", n)
		}
	}
}
