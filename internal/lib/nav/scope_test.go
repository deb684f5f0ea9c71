package nav_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// TestWithScopesNavigation checks that `cd`, `pushd` and `popd` inside a
// `with` block move only the block: afterwards `cd -` and `dirs` see the
// session's own navigation, and inside the block they see a snapshot of
// it plus the block's own moves.
func TestWithScopesNavigation(t *testing.T) {
	ok := host.NewOS(host.AllowAll)
	nav := map[string]string{"a/": "", "b/": ""}
	run(t, ok, []navCase{
		// The case: the block's cd must not become the session's
		// previous directory.
		{name: "cd dash after with cd", src: "cd /tmp\nwith cwd: \"/usr\" { cd /etc }\ncd -\npwd.name", want: `"work"`},
		{name: "with cd leaves cwd", files: nav, src: "cd a\nwith cwd: \"../b\" { cd /etc }\npwd.name", want: `"a"`},
		{name: "cd dash inside with after cd", files: nav, src: "with cwd: \"b\" { cd /etc\ncd -\npwd.name }", want: `"b"`},
		{name: "cd dash inside with sees the session's", files: nav, src: "cd a\nwith cwd: \"../b\" { cd -\npwd.name }", want: `"work"`},
		{name: "cd dash inside with then after", files: nav, src: "cd a\nwith cwd: \"../b\" { cd - }\ncd -\npwd.name", want: `"work"`},
		{name: "no previous after with cd", files: nav, src: "with cwd: \"a\" { cd ../b }\ncd -", err: "custom"},
		{name: "pushd inside with", files: nav, src: "with cwd: \"a\" { pushd /etc\ndirs.map(.name) }", want: `["etc", "a"]`},
		{name: "pushd inside with leaves stack", files: nav, src: "with cwd: \"a\" { pushd /etc }\n[pwd.name, dirs.map(.name)]", want: `["work", ["work"]]`},
		{name: "pushd inside with leaves oldpwd", files: nav, src: "with cwd: \"a\" { pushd /etc }\ncd -", err: "custom"},
		{name: "with sees session stack", files: nav, src: "pushd a\nwith cwd: \"/etc\" { dirs.map(.name) }", want: `["etc", "work"]`},
		{name: "popd inside with", files: nav, src: "pushd a\nwith cwd: \"/etc\" { popd\npwd.name }", want: `"work"`},
		{name: "popd inside with leaves stack", files: nav, src: "pushd a\nwith cwd: \"/etc\" { popd }\n[pwd.name, dirs.map(.name)]", want: `["a", ["a", "work"]]`},
		{name: "popd inside with empty", files: nav, src: "with cwd: \"a\" { popd }", err: "custom"},
		{name: "pushd swap inside with", files: nav, src: "pushd a\nwith cwd: \"/etc\" { pushd\n[pwd.name, dirs.map(.name)] }", want: `["work", ["work", "etc"]]`},
		{name: "nested with", files: nav, src: "with cwd: \"a\" { with cwd: \"../b\" { pushd /etc }\ndirs.map(.name) }", want: `["a"]`},
		{name: "with after failure leaves stack", files: nav, src: "let r = try { with cwd: \"a\" { pushd /etc\n1 / 0 } } catch e { e.code }\n[r, pwd.name, dirs.len()]", want: `["div_zero", "work", 1]`},
		// An environment prefix scopes only the environment: navigation by
		// the command is the caller's, at top level and inside `with`.
		{name: "env prefix cd at top", files: nav, src: "FOO=1 cd a\ncd -\npwd.name", want: `"work"`},
		{name: "env prefix cd inside with", files: nav, src: "with cwd: \"b\" { FOO=1 cd ../a\npwd.name }", want: `"a"`},
		{name: "env prefix pushd", files: nav, src: "FOO=1 pushd a\ndirs.map(.name)", want: `["a", "work"]`},
	})
}

// TestWithNavigationAcrossEvals checks that navigation inside a `with`
// block in one evaluation does not reach the session's state that the
// next evaluation starts from.
func TestWithNavigationAcrossEvals(t *testing.T) {
	in, dir := session(t, host.NewOS(host.AllowAll), map[string]string{"a/": "", "b/": ""})
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
	run(t, ok, []navCase{
		{name: "declarations persist", files: files, src: "source defs.shl\n[greeting, twice(21)]", want: `["hi", 42]`},
		{name: "assigns caller var", files: files, src: "var count = 5\nsource bump.shl\ncount", want: "6"},
		{name: "value is the last statement", files: files, src: "source last.shl", want: "42"},
		{name: "cd persists", files: files, src: "source move.shl\npwd.name", want: `"a"`},
		{name: "cd records oldpwd", files: files, src: "source move.shl\ncd -\npwd.name", want: `"work"`},
		{name: "pushd persists", files: files, src: "source push.shl\ndirs.map(.name)", want: `["a", "work"]`},
		{name: "env persists", files: files, src: "source env.shl\nenv.SOURCED", want: `"yes"`},
		{name: "cd inside with ends with block", files: files, src: "with cwd: \".\" { source move.shl }\n[pwd.name, dirs.len()]", want: `["work", 1]`},
		{name: "env inside with ends with block", files: files, src: "with cwd: \".\" { source env.shl }\nenv.SOURCED", want: "null"},
		{name: "cd inside function refused", files: files, src: "fn f() { source move.shl }\nf()", err: "custom"},
		{name: "defs inside function stay local", files: files, src: "fn f() { source defs.shl\ngreeting }\n[f(), try { greeting } catch e { e.code }]", want: `["hi", "undefined_var"]`},
	})
}

// TestSourceNavigationAcrossEvals checks that a sourced `cd` at top level
// is the session's working directory for the next evaluation.
func TestSourceNavigationAcrossEvals(t *testing.T) {
	in, dir := session(t, host.NewOS(host.AllowAll), map[string]string{"a/": "", "move.shl": "cd a\nlet moved = true\n"})
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
