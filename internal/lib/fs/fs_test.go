package fs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/libtest"
)

var bfsTree = map[string]string{"a.txt": "hello", "b.txt": "", ".hidden": "h", "sub/x.txt": "x"}

func TestFSReadBuiltins(t *testing.T) {
	ok := host.NewOS(host.AllowAll)
	lines := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	libtest.Run(t, ok, []libtest.Case{
		{Name: "ls names sorted, hidden skipped", Files: bfsTree, Src: "ls.map(.name)", Want: `["a.txt", "b.txt", "sub"]`},
		{Name: "ls -a shows hidden", Files: bfsTree, Src: "(ls -a).map(.name)", Want: `[".hidden", "a.txt", "b.txt", "sub"]`},
		{Name: "ls --all", Files: bfsTree, Src: "(ls --all).len()", Want: "4"},
		{Name: "ls columns", Files: bfsTree, Src: "ls.first().keys()", Want: `["path", "name", "type", "size", "modified"]`},
		{Name: "ls types", Files: bfsTree, Src: "ls.map(.type)", Want: `["file", "file", "dir"]`},
		{Name: "ls size", Files: bfsTree, Src: "(ls a.txt).first().size", Want: "5b"},
		{Name: "ls dir paths", Files: bfsTree, Src: "(ls sub).map(.path)", Want: "[sub/x.txt]"},
		{Name: "ls glob", Files: bfsTree, Src: "(ls *.txt).map(.name)", Want: `["a.txt", "b.txt"]`},
		{Name: "ls several sorted by path", Files: bfsTree, Src: "(ls sub a.txt).map(.path)", Want: "[a.txt, sub/x.txt]"},
		{Name: "ls modified is datetime", Files: bfsTree, Src: "match ((ls a.txt).first().modified) { datetime d => true; _ => false }", Want: "true"},
		{Name: "ls is a table", Files: bfsTree, Src: "match ((ls).out) { table x => x.len(); _ => -1 }", Want: "3"},
		{Name: "ls missing", Src: "ls nope", Err: "custom"},
		{Name: "ls symlink row", Files: bfsTree, Src: "ln -s a.txt l.txt\n(ls l.txt).first().type", Want: `"symlink"`},

		{Name: "stat one is a record", Files: bfsTree, Src: "(stat a.txt).out.name", Want: `"a.txt"`},
		{Name: "stat dir type", Files: bfsTree, Src: "(stat sub).out.type", Want: `"dir"`},
		{Name: "stat many is a table", Files: bfsTree, Src: "(stat a.txt b.txt).out.map(.size)", Want: "[5b, 0b]"},
		{Name: "stat no args", Src: "stat", Err: "arg_error"},
		{Name: "stat missing", Src: "stat nope.txt", Err: "custom"},
		{Name: "stat str arg", Files: bfsTree, Src: `(stat "a.txt").out.size`, Want: "5b"},
		{Name: "stat rejects int", Src: "stat (5)", Err: "type_error"},

		{Name: "cat one file", Files: bfsTree, Src: "(cat a.txt).out.str()", Want: `"hello"`},
		{Name: "cat concatenates", Files: map[string]string{"a": "x\n", "b": "y"}, Src: "(cat a b).out.str()", Want: `"x\ny"`},
		{Name: "cat is bytes", Files: bfsTree, Src: "match ((cat a.txt).out) { bytes b => b.len(); _ => -1 }", Want: "5"},
		{Name: "cat non-utf8 stays bytes", Files: map[string]string{"bin": "\xff\xfe"}, Src: "(cat bin).out.len()", Want: "2"},
		{Name: "cat no args", Src: "cat", Err: "arg_error"},
		{Name: "cat missing", Src: "cat nope.txt", Err: "custom"},
		{Name: "cat fed text", Src: `"x\n".feed(cat).out`, Want: `"x"`},
		{Name: "cat fed json", Src: "[1, 2].feed(cat).out", Want: "[1, 2]"},

		{Name: "head default ten", Files: map[string]string{"n": lines}, Src: "(head n).out.len()", Want: "10"},
		{Name: "head count", Files: map[string]string{"n": lines}, Src: "(head n 2).out", Want: `["1", "2"]`},
		{Name: "head count str", Files: map[string]string{"n": lines}, Src: `(head n "3").out.len()`, Want: "3"},
		{Name: "head crlf", Files: map[string]string{"n": "a\r\nb\r\n"}, Src: "(head n).out", Want: `["a", "b"]`},
		{Name: "head lossy", Files: map[string]string{"n": "a\xffb\n"}, Src: "(head n).out", Want: "[\"a\uFFFDb\"]"},
		{Name: "head negative", Files: map[string]string{"n": lines}, Src: "head n (-1)", Err: "arg_error"},
		{Name: "head bad str", Files: map[string]string{"n": lines}, Src: `head n "x"`, Err: "arg_error"},
		{Name: "head wrong type", Files: map[string]string{"n": lines}, Src: "head n (1.5)", Err: "type_error"},
		{Name: "head no path", Src: "head", Err: "arg_error"},
		{Name: "head missing", Src: "head nope", Err: "custom"},
	})
}

func TestFSWriteBuiltins(t *testing.T) {
	ok := host.NewOS(host.AllowAll)
	libtest.Run(t, ok, []libtest.Case{
		{Name: "mkdir returns paths", Src: "(mkdir d e).out", Want: "[d, e]", Check: func(t *testing.T, dir string) {
			if fi, err := os.Stat(filepath.Join(dir, "e")); err != nil || !fi.IsDir() {
				t.Errorf("e not created: %v", err)
			}
		}},
		{Name: "mkdir -p nested", Src: "mkdir -p a/b/c\n(stat a/b/c).out.type", Want: `"dir"`},
		{Name: "mkdir -p existing ok", Files: bfsTree, Src: "(mkdir --parents sub).out.len()", Want: "1"},
		{Name: "mkdir existing", Files: bfsTree, Src: "mkdir sub", Err: "custom"},
		{Name: "mkdir missing parent", Src: "mkdir a/b", Err: "custom", Check: func(t *testing.T, dir string) {
			if evaltest.Exists(t, filepath.Join(dir, "a")) {
				t.Error("parent created without -p")
			}
		}},
		{Name: "mkdir no args", Src: "mkdir", Err: "arg_error"},

		{Name: "touch creates", Src: "(touch f.txt).out", Want: "[f.txt]", Check: func(t *testing.T, dir string) {
			if got := evaltest.ReadFile(t, filepath.Join(dir, "f.txt")); got != "" {
				t.Errorf("content %q", got)
			}
		}},
		{Name: "touch keeps content", Files: bfsTree, Src: "touch a.txt\n(cat a.txt).out.str()", Want: `"hello"`},
		{Name: "touch no args", Src: "touch", Err: "arg_error"},

		{Name: "cp file", Files: bfsTree, Src: "(cp a.txt c.txt).out", Want: "[c.txt]", Check: func(t *testing.T, dir string) {
			if got := evaltest.ReadFile(t, filepath.Join(dir, "c.txt")); got != "hello" {
				t.Errorf("copy content %q", got)
			}
		}},
		{Name: "cp into dir", Files: bfsTree, Src: "(cp a.txt b.txt sub).out", Want: "[sub/a.txt, sub/b.txt]"},
		{Name: "cp several to file", Files: bfsTree, Src: "cp a.txt b.txt c.txt", Err: "arg_error"},
		{Name: "cp dir needs -r", Files: bfsTree, Src: "cp sub sub2", Err: "arg_error", Check: func(t *testing.T, dir string) {
			if evaltest.Exists(t, filepath.Join(dir, "sub2")) {
				t.Error("sub2 created")
			}
		}},
		{Name: "cp -r", Files: bfsTree, Src: "cp -r sub sub2\n(cat sub2/x.txt).out.str()", Want: `"x"`},
		{Name: "cp -R", Files: bfsTree, Src: "(cp -R sub sub2).out", Want: "[sub2]"},
		{Name: "cp missing source", Src: "cp nope.txt d.txt", Err: "custom"},
		{Name: "cp one arg", Files: bfsTree, Src: "cp a.txt", Err: "arg_error"},

		{Name: "mv renames", Files: bfsTree, Src: "(mv a.txt c.txt).out", Want: "[c.txt]", Check: func(t *testing.T, dir string) {
			if evaltest.Exists(t, filepath.Join(dir, "a.txt")) || evaltest.ReadFile(t, filepath.Join(dir, "c.txt")) != "hello" {
				t.Error("not moved")
			}
		}},
		{Name: "mv into dir", Files: bfsTree, Src: "(mv a.txt b.txt sub).out", Want: "[sub/a.txt, sub/b.txt]"},
		{Name: "mv several to file", Files: bfsTree, Src: "mv a.txt b.txt c.txt", Err: "arg_error"},
		{Name: "mv onto itself", Files: bfsTree, Src: "mv a.txt a.txt\n(cat a.txt).out.str()", Want: `"hello"`},
		{Name: "mv missing checks before moving", Files: bfsTree, Src: "mv a.txt nope.txt sub", Err: "custom", Check: func(t *testing.T, dir string) {
			if !evaltest.Exists(t, filepath.Join(dir, "a.txt")) {
				t.Error("a.txt moved before the failure was found")
			}
		}},

		{Name: "ln -s record", Files: bfsTree, Src: "(ln -s a.txt l.txt).out", Want: "{target: a.txt, link: l.txt, symbolic: true}", Check: func(t *testing.T, dir string) {
			if got, err := os.Readlink(filepath.Join(dir, "l.txt")); err != nil || got != "a.txt" {
				t.Errorf("readlink = %q, %v (target must stay verbatim)", got, err)
			}
		}},
		{Name: "ln hard", Files: bfsTree, Src: "ln a.txt h.txt\n(cat h.txt).out.str()", Want: `"hello"`, Check: func(t *testing.T, dir string) {
			a, _ := os.Stat(filepath.Join(dir, "a.txt"))
			h, err := os.Lstat(filepath.Join(dir, "h.txt"))
			if err != nil || !os.SameFile(a, h) {
				t.Errorf("h.txt is not a hard link to a.txt: %v", err)
			}
		}},
		{Name: "ln hard not symbolic", Files: bfsTree, Src: "(ln a.txt h.txt).out.symbolic", Want: "false"},
		{Name: "ln arity", Src: "ln a.txt", Err: "arg_error"},
		{Name: "ln existing link", Files: bfsTree, Src: "ln -s a.txt b.txt", Err: "custom"},

		{Name: "save command form", Src: "save out.txt \"hi\"\n(cat out.txt).out.str()", Want: `"hi"`},
		{Name: "save returns value", Src: "save out.json ([1, 2])", Want: "[1, 2]", Check: func(t *testing.T, dir string) {
			if got := evaltest.ReadFile(t, filepath.Join(dir, "out.json")); got != "[1,2]" {
				t.Errorf("saved %q", got)
			}
		}},
		{Name: "save arity", Src: "save out.txt", Err: "arg_error"},

		{Name: "open arity", Src: "open", Err: "arg_error"},
		{Name: "open missing", Src: "open nope.txt", Err: "custom"},
	})
}

func TestFSTouchRefreshesTime(t *testing.T) {
	in, dir := libtest.Session(t, host.NewOS(host.AllowAll), map[string]string{"f": "x"})
	old := time.Now().Add(-48 * time.Hour).Truncate(time.Second)
	p := filepath.Join(dir, "f")
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Eval(context.Background(), "touch f"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().After(old.Add(time.Hour)) {
		t.Errorf("mtime %v not refreshed (was %v)", fi.ModTime(), old)
	}
}

func TestFSLinkHard(t *testing.T) {
	in, dir := libtest.Session(t, host.NewOS(host.AllowAll), map[string]string{"a": "x"})
	if _, err := in.Eval(context.Background(), "ln a b"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("shared"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := evaltest.ReadFile(t, filepath.Join(dir, "b")); got != "shared" {
		t.Errorf("b reads %q after writing a; want the shared content of a hard link", got)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "b")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("b is %v (%v), want a regular file", fi, err)
	}
	_, err := in.Eval(context.Background(), "ln missing c")
	if evaltest.Code(err) != "custom" {
		t.Errorf("ln of a missing target: %v, want custom", err)
	}
	if evaltest.Exists(t, filepath.Join(dir, "c")) {
		t.Error("link to a missing target created")
	}
}

func TestFSRm(t *testing.T) {
	ok := host.NewOS(host.AllowAll)
	libtest.Run(t, ok, []libtest.Case{
		{Name: "trash record", Files: bfsTree, Src: "let r = (rm a.txt).out.first()\n[r.path, path(r.trash).read]", Want: `[a.txt, "hello"]`, Check: func(t *testing.T, dir string) {
			if evaltest.Exists(t, filepath.Join(dir, "a.txt")) {
				t.Error("a.txt still there")
			}
		}},
		{Name: "trash lives under TMPDIR", Files: bfsTree, Src: "(rm a.txt).out.first().trash.display().contains(\"/tmp/shoal-trash/\")", Want: "true"},
		{Name: "trash dir without -r", Files: bfsTree, Src: "(rm sub).out.len()", Want: "1", Check: func(t *testing.T, dir string) {
			if evaltest.Exists(t, filepath.Join(dir, "sub")) {
				t.Error("sub still there")
			}
		}},
		{Name: "trash two of same name", Files: map[string]string{"a/x": "1", "b/x": "2"}, Src: "let r = (rm a/x b/x).out\n[path(r[0].trash).read, path(r[1].trash).read]", Want: `["1", "2"]`},
		{Name: "permanent", Files: bfsTree, Src: "(rm --permanent a.txt b.txt).out", Want: "[a.txt, b.txt]", Check: func(t *testing.T, dir string) {
			if evaltest.Exists(t, filepath.Join(dir, "a.txt")) || evaltest.Exists(t, filepath.Join(dir, "b.txt")) {
				t.Error("not removed")
			}
		}},
		{Name: "permanent dir needs -r", Files: bfsTree, Src: "rm --permanent sub", Err: "arg_error", Check: func(t *testing.T, dir string) {
			if !evaltest.Exists(t, filepath.Join(dir, "sub/x.txt")) {
				t.Error("sub touched")
			}
		}},
		{Name: "permanent -r", Files: bfsTree, Src: "rm --permanent -r sub\npath(\"sub\").exists", Want: "false"},
		{Name: "no args", Src: "rm", Err: "no_matches"},
		{Name: "empty glob word", Files: bfsTree, Src: "rm *.zzz", Err: "no_matches"},
		{Name: "empty glob value", Files: bfsTree, Src: `rm (glob("*.zzz"))`, Err: "no_matches"},
		{Name: "glob value expands", Files: bfsTree, Src: `(rm --permanent (glob("*.txt"))).out`, Want: "[a.txt, b.txt]"},
		{Name: "missing checks before removing", Files: bfsTree, Src: "rm a.txt nope.txt", Err: "custom", Check: func(t *testing.T, dir string) {
			if !evaltest.Exists(t, filepath.Join(dir, "a.txt")) {
				t.Error("a.txt removed before the failure was found")
			}
		}},
	})
}
