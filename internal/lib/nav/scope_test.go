package nav_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/libtest"
	"github.com/shoalgo/shoal/internal/value"
)

// TestWithScopesNavigation checks that `cd`, `pushd` and `popd` inside a
// `with` block move only the block: afterwards `cd -` and `dirs` see the
// session's own navigation, and inside the block they see a snapshot of
// it plus the block's own moves.
func TestWithScopesNavigation(t *testing.T) {
	ok := host.NewOS(host.AllowAll)
	nav := map[string]string{"a/": "", "b/": ""}
	libtest.Run(t, ok, []libtest.Case{
		// The case: the block's cd must not become the session's
		// previous directory.
		{Name: "cd dash after with cd", Src: "cd /tmp\nwith cwd: \"/usr\" { cd /etc }\ncd -\npwd.name", Want: `"work"`},
		{Name: "with cd leaves cwd", Files: nav, Src: "cd a\nwith cwd: \"../b\" { cd /etc }\npwd.name", Want: `"a"`},
		{Name: "cd dash inside with after cd", Files: nav, Src: "with cwd: \"b\" { cd /etc\ncd -\npwd.name }", Want: `"b"`},
		{Name: "cd dash inside with sees the session's", Files: nav, Src: "cd a\nwith cwd: \"../b\" { cd -\npwd.name }", Want: `"work"`},
		{Name: "cd dash inside with then after", Files: nav, Src: "cd a\nwith cwd: \"../b\" { cd - }\ncd -\npwd.name", Want: `"work"`},
		{Name: "no previous after with cd", Files: nav, Src: "with cwd: \"a\" { cd ../b }\ncd -", Err: "custom"},
		{Name: "pushd inside with", Files: nav, Src: "with cwd: \"a\" { pushd /etc\ndirs.map(.name) }", Want: `["etc", "a"]`},
		{Name: "pushd inside with leaves stack", Files: nav, Src: "with cwd: \"a\" { pushd /etc }\n[pwd.name, dirs.map(.name)]", Want: `["work", ["work"]]`},
		{Name: "pushd inside with leaves oldpwd", Files: nav, Src: "with cwd: \"a\" { pushd /etc }\ncd -", Err: "custom"},
		{Name: "with sees session stack", Files: nav, Src: "pushd a\nwith cwd: \"/etc\" { dirs.map(.name) }", Want: `["etc", "work"]`},
		{Name: "popd inside with", Files: nav, Src: "pushd a\nwith cwd: \"/etc\" { popd\npwd.name }", Want: `"work"`},
		{Name: "popd inside with leaves stack", Files: nav, Src: "pushd a\nwith cwd: \"/etc\" { popd }\n[pwd.name, dirs.map(.name)]", Want: `["a", ["a", "work"]]`},
		{Name: "popd inside with empty", Files: nav, Src: "with cwd: \"a\" { popd }", Err: "custom"},
		{Name: "pushd swap inside with", Files: nav, Src: "pushd a\nwith cwd: \"/etc\" { pushd\n[pwd.name, dirs.map(.name)] }", Want: `["work", ["work", "etc"]]`},
		{Name: "nested with", Files: nav, Src: "with cwd: \"a\" { with cwd: \"../b\" { pushd /etc }\ndirs.map(.name) }", Want: `["a"]`},
		{Name: "with after failure leaves stack", Files: nav, Src: "let r = try { with cwd: \"a\" { pushd /etc\n1 / 0 } } catch e { e.code }\n[r, pwd.name, dirs.len()]", Want: `["div_zero", "work", 1]`},
		// An environment prefix scopes only the environment: navigation by
		// the command is the caller's, at top level and inside `with`.
		{Name: "env prefix cd at top", Files: nav, Src: "FOO=1 cd a\ncd -\npwd.name", Want: `"work"`},
		{Name: "env prefix cd inside with", Files: nav, Src: "with cwd: \"b\" { FOO=1 cd ../a\npwd.name }", Want: `"a"`},
		{Name: "env prefix pushd", Files: nav, Src: "FOO=1 pushd a\ndirs.map(.name)", Want: `["a", "work"]`},
	})
}

// TestWithNavigationAcrossEvals checks that navigation inside a `with`
// block in one evaluation does not reach the session's state that the
// next evaluation starts from.
func TestWithNavigationAcrossEvals(t *testing.T) {
	in, dir := libtest.Session(t, host.NewOS(host.AllowAll), map[string]string{"a/": "", "b/": ""})
	ctx := context.Background()
	steps := []struct{ src, want string }{
		{"cd a", ""},
		{"with cwd: \"../b\" { cd /etc\npushd /usr }", ""},
		{"dirs.map(.name)", `["a"]`},
		{"cd -\npwd.name", `"work"`},
	}
	for _, s := range steps {
		v, err := in.Eval(ctx, s.src)
		if err != nil {
			t.Fatalf("%s: %v", s.src, err)
		}
		if s.want != "" && value.Inline(v) != s.want {
			t.Errorf("%s = %s, want %s", s.src, value.Inline(v), s.want)
		}
	}
	if got := in.Dir(); got != dir {
		t.Errorf("session dir %s, want %s", got, dir)
	}
}

// TestSourceRunsInCaller checks `source` as the reference documents it:
// the file is evaluated in the caller's evaluator and scope, so its
// declarations stay visible and, at top level, its `cd`, `pushd` and
// `env.X = …` are the session's; inside `with` they end with the block,
// and inside a function the session-level moves are refused.
func TestSourceRunsInCaller(t *testing.T) {
	ok := host.NewOS(host.AllowAll)
	files := map[string]string{
		"a/":       "",
		"defs.shl": "let greeting = \"hi\"\nfn twice(x) { x * 2 }\nvar count = 1\n",
		"move.shl": "cd a\n",
		"push.shl": "pushd a\n",
		"env.shl":  "env.SOURCED = \"yes\"\n",
		"bump.shl": "count = count + 1\n",
		"last.shl": "1\n2 + 40\n",
	}
	libtest.Run(t, ok, []libtest.Case{
		{Name: "declarations persist", Files: files, Src: "source defs.shl\n[greeting, twice(21)]", Want: `["hi", 42]`},
		{Name: "assigns caller var", Files: files, Src: "var count = 5\nsource bump.shl\ncount", Want: "6"},
		{Name: "value is the last statement", Files: files, Src: "source last.shl", Want: "42"},
		{Name: "cd persists", Files: files, Src: "source move.shl\npwd.name", Want: `"a"`},
		{Name: "cd records oldpwd", Files: files, Src: "source move.shl\ncd -\npwd.name", Want: `"work"`},
		{Name: "pushd persists", Files: files, Src: "source push.shl\ndirs.map(.name)", Want: `["a", "work"]`},
		{Name: "env persists", Files: files, Src: "source env.shl\nenv.SOURCED", Want: `"yes"`},
		{Name: "cd inside with ends with block", Files: files, Src: "with cwd: \".\" { source move.shl }\n[pwd.name, dirs.len()]", Want: `["work", 1]`},
		{Name: "env inside with ends with block", Files: files, Src: "with cwd: \".\" { source env.shl }\nenv.SOURCED", Want: "null"},
		{Name: "cd inside function refused", Files: files, Src: "fn f() { source move.shl }\nf()", Err: "custom"},
		{Name: "defs inside function stay local", Files: files, Src: "fn f() { source defs.shl\ngreeting }\n[f(), try { greeting } catch e { e.code }]", Want: `["hi", "undefined_var"]`},
	})
}

// TestSourceNavigationAcrossEvals checks that a sourced `cd` at top level
// is the session's working directory for the next evaluation.
func TestSourceNavigationAcrossEvals(t *testing.T) {
	in, dir := libtest.Session(t, host.NewOS(host.AllowAll), map[string]string{"a/": "", "move.shl": "cd a\nlet moved = true\n"})
	ctx := context.Background()
	if _, err := in.Eval(ctx, "source move.shl"); err != nil {
		t.Fatal(err)
	}
	if got := in.Dir(); got != filepath.Join(dir, "a") {
		t.Errorf("session dir %s after sourced cd", got)
	}
	v, err := in.Eval(ctx, "moved")
	if err != nil || value.Inline(v) != "true" {
		t.Errorf("moved = %v, %v", v, err)
	}
}
