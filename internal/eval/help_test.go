package eval

import (
	"errors"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// TestRegistryHasHelp: every builtin and value function carries its help
// in its entry (summary, usage, example), and every example parses.
func TestRegistryHasHelp(t *testing.T) {
	check := func(kind, name string, h Help) {
		if h.Summary == "" || h.Usage == "" || h.Example == "" {
			t.Errorf("%s %s lacks help (Summary, Usage and Example in its registry entry): %+v", kind, name, h)
			return
		}
		if strings.Contains(h.Summary, "\n") {
			t.Errorf("%s %s: the summary is one line", kind, name)
		}
		if _, err := syntax.Parse(h.Example, syntax.ParseOptions{}); err != nil {
			t.Errorf("%s %s: example %q does not parse: %v", kind, name, h.Example, err)
		}
	}
	for name, b := range testRegistry.builtins {
		check("builtin", name, b.Help)
	}
	for name, f := range testRegistry.funcs {
		check("function", name, f.Help)
	}
	for _, set := range testRegistry.methods {
		for name, m := range set {
			if m.Call != nil {
				check("method", name, m.Help)
			}
		}
	}
	for _, ns := range testRegistry.namespaces {
		for _, m := range ns.Members {
			check("member", ns.Name+"."+m.Name, m.Help)
		}
	}
}

func TestHelp(t *testing.T) {
	cases := []struct {
		src  string
		has  []string
		lack []string
	}{
		{"help", []string{"Topics:", "Builtin commands", "  ls ", "Functions", "glob()", "help methods"}, nil},
		{"help ls", []string{"ls — list directory entries", "usage: ls [-a] [PATH...]", "flags:\n  -a, --all\n  -l, --long", "example:\n  ls\n"}, nil},
		{"ls --help", []string{"ls — list directory entries", "-a, --all"}, nil},
		{"rm --help", []string{"rm — remove paths", "--permanent", "-r, -R, --recursive"}, nil},
		{"echo --help", []string{"echo — print"}, nil},
		{"run --help", []string{"run — run a script"}, nil},
		{"help run", []string{"run — run a script", "run() — run a script file or program"}, nil},
		{"help sort_by", []string{".sort_by — the items ordered by a key", "usage: .sort_by(f)", "works on: ", "list", "ls.sort_by(.size)"}, nil},
		{`help ".sort_by()"`, []string{".sort_by — "}, nil},
		{"help list", []string{"list methods:", ".sort ", ".where "}, []string{".upper"}},
		{"help methods", []string{".upper", ".where", ".json"}, nil},
		{"help pipelines", []string{"ls.where(", "json.parse((cat data.json).out.str())", ".feed(^sort)"}, []string{"parse_json()?"}},
		{"help shell", []string{`env.FOO = "bar"`, `glob("*.txt")`, `path("notes.txt").is_file()`, `run("ls", "-la")`}, nil},
		{"help commands", []string{`run("ls", "-la")`}, []string{"^ls -la"}},
		{"help help", []string{"help — show help"}, nil},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			s := newSession(t)
			v, err := s.eval(c.src)
			if err != nil {
				t.Fatalf("%s: %v", c.src, err)
			}
			str, ok := v.(value.Str)
			if !ok {
				t.Fatalf("%s = %T, want str", c.src, v)
			}
			for _, h := range c.has {
				if !strings.Contains(string(str), h) {
					t.Errorf("%s lacks %q:\n%s", c.src, h, str)
				}
			}
			for _, h := range c.lack {
				if strings.Contains(string(str), h) {
					t.Errorf("%s holds %q:\n%s", c.src, h, str)
				}
			}
		})
	}
}

func TestHelpStatementPrintsOnce(t *testing.T) {
	s := newSession(t)
	if _, err := s.eval("ls --help\n1"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(s.stdout.String(), "ls — list directory entries"); got != 1 {
		t.Errorf("ls --help in statement position printed %d times:\n%s", got, s.stdout.String())
	}
}

func TestHelpRunsNothing(t *testing.T) {
	s := newSession(t)
	s.h.files["/work/keep.txt"] = []byte("x")
	if _, err := s.eval("rm --help"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.h.files["/work/keep.txt"]; !ok {
		t.Errorf("rm --help removed a file")
	}
	// --help among other words is not a request for help: rm refuses it.
	_, err := s.eval("rm --help keep.txt")
	var e *value.Error
	if !errors.As(err, &e) || e.Code != codeArg {
		t.Errorf("rm --help keep.txt: %v, want arg_error", err)
	}
}

func TestHelpErrors(t *testing.T) {
	cases := []struct{ src, code, has string }{
		{"help lss", codeNotFound, "did you mean 'ls'?"},
		{"help zzzzzzzzzz", codeNotFound, "help lists the topics"},
		{"help ls cd", codeArg, "at most one name"},
		{"help (3)", codeArg, "expected a name"},
	}
	for _, c := range cases {
		s := newSession(t)
		_, err := s.eval(c.src)
		var e *value.Error
		if !errors.As(err, &e) || e.Code != c.code {
			t.Errorf("%s: %v, want %s", c.src, err, c.code)
			continue
		}
		if !strings.Contains(e.Msg+" "+e.Hint, c.has) {
			t.Errorf("%s: %q / %q lacks %q", c.src, e.Msg, e.Hint, c.has)
		}
	}
}

// TestProgramFlagsHint: a builtin named like a program refuses that
// program's flags with a hint naming the program itself.
func TestProgramFlagsHint(t *testing.T) {
	cases := []struct{ src, hint string }{
		{"ls -lt", `ls accepts -a/--all, -l/--long; the ls program itself: run("ls", "-lt")`},
		{"rm -ri x", `the rm program itself: run("rm", "-ri")`},
		{"cp --preserve a b", `run("cp", "--preserve")`},
	}
	for _, c := range cases {
		s := newSession(t)
		_, err := s.eval(c.src)
		var e *value.Error
		if !errors.As(err, &e) || e.Code != codeArg || !strings.Contains(e.Hint, c.hint) {
			t.Errorf("%s: %v (hint %q), want arg_error with %q", c.src, err, hintOf(e), c.hint)
		}
	}
}

func hintOf(e *value.Error) string {
	if e == nil {
		return ""
	}
	return e.Hint
}

// TestShellAssignHint: FOO=bar, a POSIX assignment, is answered with
// its Shoal spellings; so is assigning a name never declared.
func TestShellAssignHint(t *testing.T) {
	cases := []struct{ src, hint string }{
		{"FOO=bar", `write let FOO = "bar", or env.FOO = "bar"`},
		{"FOO = 1", "declare it first: let FOO = VALUE"},
	}
	for _, c := range cases {
		s := newSession(t)
		_, err := s.eval(c.src)
		var e *value.Error
		if !errors.As(err, &e) || e.Code != codeUndefined || !strings.Contains(e.Hint, c.hint) {
			t.Errorf("%s: %v (hint %q), want undefined_var with %q", c.src, err, hintOf(e), c.hint)
		}
	}
}
