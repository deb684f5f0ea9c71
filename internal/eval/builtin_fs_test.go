package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// bfsFixture creates files (name -> content) and directories (names
// ending in "/") under dir.
func bfsFixture(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// bfsSession returns an interpreter rooted at a fresh directory with the
// given fixture, its HOME and TMPDIR inside that directory.
func bfsSession(t testing.TB, h host.Host, files map[string]string) (*Interp, string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "work")
	bfsFixture(t, root, map[string]string{"work/": "", "home/": "", "tmp/": ""})
	bfsFixture(t, dir, files)
	in, err := New(Options{Registry: testRegistry,
		Host: h,
		Dir:  dir,
		Env:  []string{"HOME=" + filepath.Join(root, "home"), "TMPDIR=" + filepath.Join(root, "tmp"), "PATH=/usr/bin:/bin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return in, dir
}

func bfsCode(err error) string {
	if err == nil {
		return ""
	}
	var ve *value.Error
	if errors.As(err, &ve) {
		return ve.Code
	}
	return "go:" + err.Error()
}

type bfsCase struct {
	name  string
	files map[string]string
	src   string
	want  string // inline rendering of the result
	err   string // error code instead of want
	check func(t *testing.T, dir string)
}

func bfsRun(t *testing.T, h host.Host, cases []bfsCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, dir := bfsSession(t, h, tc.files)
			v, err := in.Eval(context.Background(), tc.src)
			switch {
			case tc.err != "":
				if err == nil {
					t.Fatalf("got %s, want error %s", value.Inline(v), tc.err)
				}
				if got := bfsCode(err); got != tc.err {
					t.Fatalf("error %s (%v), want %s", got, err, tc.err)
				}
			case err != nil:
				t.Fatalf("error: %v", err)
			default:
				if got := value.Inline(v); got != tc.want {
					t.Fatalf("got %s, want %s", got, tc.want)
				}
			}
			if tc.check != nil {
				tc.check(t, dir)
			}
		})
	}
}

func bfsExists(t *testing.T, p string) bool {
	t.Helper()
	_, err := os.Lstat(p)
	return err == nil
}

func bfsRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var bfsTree = map[string]string{"a.txt": "hello", "b.txt": "", ".hidden": "h", "sub/x.txt": "x"}

func TestFSReadBuiltins(t *testing.T) {
	ok := host.NewOS(host.AllowAll)
	lines := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	bfsRun(t, ok, []bfsCase{
		{name: "ls names sorted, hidden skipped", files: bfsTree, src: "ls.map(.name)", want: `["a.txt", "b.txt", "sub"]`},
		{name: "ls -a shows hidden", files: bfsTree, src: "(ls -a).map(.name)", want: `[".hidden", "a.txt", "b.txt", "sub"]`},
		{name: "ls --all", files: bfsTree, src: "(ls --all).len()", want: "4"},
		{name: "ls columns", files: bfsTree, src: "ls.first().keys()", want: `["path", "name", "type", "size", "modified"]`},
		{name: "ls types", files: bfsTree, src: "ls.map(.type)", want: `["file", "file", "dir"]`},
		{name: "ls size", files: bfsTree, src: "(ls a.txt).first().size", want: "5b"},
		{name: "ls dir paths", files: bfsTree, src: "(ls sub).map(.path)", want: "[sub/x.txt]"},
		{name: "ls glob", files: bfsTree, src: "(ls *.txt).map(.name)", want: `["a.txt", "b.txt"]`},
		{name: "ls several sorted by path", files: bfsTree, src: "(ls sub a.txt).map(.path)", want: "[a.txt, sub/x.txt]"},
		{name: "ls modified is datetime", files: bfsTree, src: "match ((ls a.txt).first().modified) { datetime d => true; _ => false }", want: "true"},
		{name: "ls is a table", files: bfsTree, src: "match ((ls).out) { table x => x.len(); _ => -1 }", want: "3"},
		{name: "ls missing", src: "ls nope", err: "custom"},
		{name: "ls symlink row", files: bfsTree, src: "ln -s a.txt l.txt\n(ls l.txt).first().type", want: `"symlink"`},

		{name: "stat one is a record", files: bfsTree, src: "(stat a.txt).out.name", want: `"a.txt"`},
		{name: "stat dir type", files: bfsTree, src: "(stat sub).out.type", want: `"dir"`},
		{name: "stat many is a table", files: bfsTree, src: "(stat a.txt b.txt).out.map(.size)", want: "[5b, 0b]"},
		{name: "stat no args", src: "stat", err: "arg_error"},
		{name: "stat missing", src: "stat nope.txt", err: "custom"},
		{name: "stat str arg", files: bfsTree, src: `(stat "a.txt").out.size`, want: "5b"},
		{name: "stat rejects int", src: "stat (5)", err: "type_error"},

		{name: "cat one file", files: bfsTree, src: "(cat a.txt).out.str()", want: `"hello"`},
		{name: "cat concatenates", files: map[string]string{"a": "x\n", "b": "y"}, src: "(cat a b).out.str()", want: `"x\ny"`},
		{name: "cat is bytes", files: bfsTree, src: "match ((cat a.txt).out) { bytes b => b.len(); _ => -1 }", want: "5"},
		{name: "cat non-utf8 stays bytes", files: map[string]string{"bin": "\xff\xfe"}, src: "(cat bin).out.len()", want: "2"},
		{name: "cat no args", src: "cat", err: "arg_error"},
		{name: "cat missing", src: "cat nope.txt", err: "custom"},
		{name: "cat fed text", src: `"x\n".feed(cat).out`, want: `"x"`},
		{name: "cat fed json", src: "[1, 2].feed(cat).out", want: "[1, 2]"},

		{name: "head default ten", files: map[string]string{"n": lines}, src: "(head n).out.len()", want: "10"},
		{name: "head count", files: map[string]string{"n": lines}, src: "(head n 2).out", want: `["1", "2"]`},
		{name: "head count str", files: map[string]string{"n": lines}, src: `(head n "3").out.len()`, want: "3"},
		{name: "head crlf", files: map[string]string{"n": "a\r\nb\r\n"}, src: "(head n).out", want: `["a", "b"]`},
		{name: "head lossy", files: map[string]string{"n": "a\xffb\n"}, src: "(head n).out", want: "[\"a\uFFFDb\"]"},
		{name: "head negative", files: map[string]string{"n": lines}, src: "head n (-1)", err: "arg_error"},
		{name: "head bad str", files: map[string]string{"n": lines}, src: `head n "x"`, err: "arg_error"},
		{name: "head wrong type", files: map[string]string{"n": lines}, src: "head n (1.5)", err: "type_error"},
		{name: "head no path", src: "head", err: "arg_error"},
		{name: "head missing", src: "head nope", err: "custom"},
	})
}

func TestFSWriteBuiltins(t *testing.T) {
	ok := host.NewOS(host.AllowAll)
	bfsRun(t, ok, []bfsCase{
		{name: "mkdir returns paths", src: "(mkdir d e).out", want: "[d, e]", check: func(t *testing.T, dir string) {
			if fi, err := os.Stat(filepath.Join(dir, "e")); err != nil || !fi.IsDir() {
				t.Errorf("e not created: %v", err)
			}
		}},
		{name: "mkdir -p nested", src: "mkdir -p a/b/c\n(stat a/b/c).out.type", want: `"dir"`},
		{name: "mkdir -p existing ok", files: bfsTree, src: "(mkdir --parents sub).out.len()", want: "1"},
		{name: "mkdir existing", files: bfsTree, src: "mkdir sub", err: "custom"},
		{name: "mkdir missing parent", src: "mkdir a/b", err: "custom", check: func(t *testing.T, dir string) {
			if bfsExists(t, filepath.Join(dir, "a")) {
				t.Error("parent created without -p")
			}
		}},
		{name: "mkdir no args", src: "mkdir", err: "arg_error"},

		{name: "touch creates", src: "(touch f.txt).out", want: "[f.txt]", check: func(t *testing.T, dir string) {
			if got := bfsRead(t, filepath.Join(dir, "f.txt")); got != "" {
				t.Errorf("content %q", got)
			}
		}},
		{name: "touch keeps content", files: bfsTree, src: "touch a.txt\n(cat a.txt).out.str()", want: `"hello"`},
		{name: "touch no args", src: "touch", err: "arg_error"},

		{name: "cp file", files: bfsTree, src: "(cp a.txt c.txt).out", want: "[c.txt]", check: func(t *testing.T, dir string) {
			if got := bfsRead(t, filepath.Join(dir, "c.txt")); got != "hello" {
				t.Errorf("copy content %q", got)
			}
		}},
		{name: "cp into dir", files: bfsTree, src: "(cp a.txt b.txt sub).out", want: "[sub/a.txt, sub/b.txt]"},
		{name: "cp several to file", files: bfsTree, src: "cp a.txt b.txt c.txt", err: "arg_error"},
		{name: "cp dir needs -r", files: bfsTree, src: "cp sub sub2", err: "arg_error", check: func(t *testing.T, dir string) {
			if bfsExists(t, filepath.Join(dir, "sub2")) {
				t.Error("sub2 created")
			}
		}},
		{name: "cp -r", files: bfsTree, src: "cp -r sub sub2\n(cat sub2/x.txt).out.str()", want: `"x"`},
		{name: "cp -R", files: bfsTree, src: "(cp -R sub sub2).out", want: "[sub2]"},
		{name: "cp missing source", src: "cp nope.txt d.txt", err: "custom"},
		{name: "cp one arg", files: bfsTree, src: "cp a.txt", err: "arg_error"},

		{name: "mv renames", files: bfsTree, src: "(mv a.txt c.txt).out", want: "[c.txt]", check: func(t *testing.T, dir string) {
			if bfsExists(t, filepath.Join(dir, "a.txt")) || bfsRead(t, filepath.Join(dir, "c.txt")) != "hello" {
				t.Error("not moved")
			}
		}},
		{name: "mv into dir", files: bfsTree, src: "(mv a.txt b.txt sub).out", want: "[sub/a.txt, sub/b.txt]"},
		{name: "mv several to file", files: bfsTree, src: "mv a.txt b.txt c.txt", err: "arg_error"},
		{name: "mv onto itself", files: bfsTree, src: "mv a.txt a.txt\n(cat a.txt).out.str()", want: `"hello"`},
		{name: "mv missing checks before moving", files: bfsTree, src: "mv a.txt nope.txt sub", err: "custom", check: func(t *testing.T, dir string) {
			if !bfsExists(t, filepath.Join(dir, "a.txt")) {
				t.Error("a.txt moved before the failure was found")
			}
		}},

		{name: "ln -s record", files: bfsTree, src: "(ln -s a.txt l.txt).out", want: "{target: a.txt, link: l.txt, symbolic: true}", check: func(t *testing.T, dir string) {
			if got, err := os.Readlink(filepath.Join(dir, "l.txt")); err != nil || got != "a.txt" {
				t.Errorf("readlink = %q, %v (target must stay verbatim)", got, err)
			}
		}},
		{name: "ln hard", files: bfsTree, src: "ln a.txt h.txt\n(cat h.txt).out.str()", want: `"hello"`, check: func(t *testing.T, dir string) {
			a, _ := os.Stat(filepath.Join(dir, "a.txt"))
			h, err := os.Lstat(filepath.Join(dir, "h.txt"))
			if err != nil || !os.SameFile(a, h) {
				t.Errorf("h.txt is not a hard link to a.txt: %v", err)
			}
		}},
		{name: "ln hard not symbolic", files: bfsTree, src: "(ln a.txt h.txt).out.symbolic", want: "false"},
		{name: "ln arity", src: "ln a.txt", err: "arg_error"},
		{name: "ln existing link", files: bfsTree, src: "ln -s a.txt b.txt", err: "custom"},

		{name: "save command form", src: "save out.txt \"hi\"\n(cat out.txt).out.str()", want: `"hi"`},
		{name: "save returns value", src: "save out.json ([1, 2])", want: "[1, 2]", check: func(t *testing.T, dir string) {
			if got := bfsRead(t, filepath.Join(dir, "out.json")); got != "[1,2]" {
				t.Errorf("saved %q", got)
			}
		}},
		{name: "save arity", src: "save out.txt", err: "arg_error"},

		{name: "open arity", src: "open", err: "arg_error"},
		{name: "open missing", src: "open nope.txt", err: "custom"},
	})
}

func TestFSTouchRefreshesTime(t *testing.T) {
	in, dir := bfsSession(t, host.NewOS(host.AllowAll), map[string]string{"f": "x"})
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
	in, dir := bfsSession(t, host.NewOS(host.AllowAll), map[string]string{"a": "x"})
	if _, err := in.Eval(context.Background(), "ln a b"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("shared"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := bfsRead(t, filepath.Join(dir, "b")); got != "shared" {
		t.Errorf("b reads %q after writing a; want the shared content of a hard link", got)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "b")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("b is %v (%v), want a regular file", fi, err)
	}
	_, err := in.Eval(context.Background(), "ln missing c")
	if bfsCode(err) != "custom" {
		t.Errorf("ln of a missing target: %v, want custom", err)
	}
	if bfsExists(t, filepath.Join(dir, "c")) {
		t.Error("link to a missing target created")
	}
}

func TestFSRm(t *testing.T) {
	ok := host.NewOS(host.AllowAll)
	bfsRun(t, ok, []bfsCase{
		{name: "trash record", files: bfsTree, src: "let r = (rm a.txt).out.first()\n[r.path, path(r.trash).read]", want: `[a.txt, "hello"]`, check: func(t *testing.T, dir string) {
			if bfsExists(t, filepath.Join(dir, "a.txt")) {
				t.Error("a.txt still there")
			}
		}},
		{name: "trash lives under TMPDIR", files: bfsTree, src: "(rm a.txt).out.first().trash.display().contains(\"/tmp/shoal-trash/\")", want: "true"},
		{name: "trash dir without -r", files: bfsTree, src: "(rm sub).out.len()", want: "1", check: func(t *testing.T, dir string) {
			if bfsExists(t, filepath.Join(dir, "sub")) {
				t.Error("sub still there")
			}
		}},
		{name: "trash two of same name", files: map[string]string{"a/x": "1", "b/x": "2"}, src: "let r = (rm a/x b/x).out\n[path(r[0].trash).read, path(r[1].trash).read]", want: `["1", "2"]`},
		{name: "permanent", files: bfsTree, src: "(rm --permanent a.txt b.txt).out", want: "[a.txt, b.txt]", check: func(t *testing.T, dir string) {
			if bfsExists(t, filepath.Join(dir, "a.txt")) || bfsExists(t, filepath.Join(dir, "b.txt")) {
				t.Error("not removed")
			}
		}},
		{name: "permanent dir needs -r", files: bfsTree, src: "rm --permanent sub", err: "arg_error", check: func(t *testing.T, dir string) {
			if !bfsExists(t, filepath.Join(dir, "sub/x.txt")) {
				t.Error("sub touched")
			}
		}},
		{name: "permanent -r", files: bfsTree, src: "rm --permanent -r sub\npath(\"sub\").exists", want: "false"},
		{name: "no args", src: "rm", err: "no_matches"},
		{name: "empty glob word", files: bfsTree, src: "rm *.zzz", err: "no_matches"},
		{name: "empty glob value", files: bfsTree, src: `rm (glob("*.zzz"))`, err: "no_matches"},
		{name: "glob value expands", files: bfsTree, src: `(rm --permanent (glob("*.txt"))).out`, want: "[a.txt, b.txt]"},
		{name: "missing checks before removing", files: bfsTree, src: "rm a.txt nope.txt", err: "custom", check: func(t *testing.T, dir string) {
			if !bfsExists(t, filepath.Join(dir, "a.txt")) {
				t.Error("a.txt removed before the failure was found")
			}
		}},
	})
}

// TestPwd: pwd, which stays with the language, is the working directory as
// a path (the navigation commands' tests are internal/lib/nav's).
func TestPwd(t *testing.T) {
	bfsRun(t, host.NewOS(host.AllowAll), []bfsCase{
		{name: "pwd is a path", src: "match pwd { path p => p.name; _ => null }", want: `"work"`},
	})
}
