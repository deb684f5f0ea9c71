package main

// The doc-example harness: every example `help` shows and every ```shoal
// fence in docs/*.md and README.md runs here, the way `shoal -c` runs a
// program (the same configuration, trust and adapters), in a fresh
// directory seeded with docFixture. An example fails when it does not
// parse or when it raises an error; ```shoal no-run REASON fences are
// only parsed, ```shoal error fences must fail line by line. See
// docs/examples.md.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/docexamples"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// exampleTimeout bounds one example; none needs more than a few seconds.
const exampleTimeout = 20 * time.Second

// docFixture is what every example's directory holds: a few files a
// reader of the docs would have around (a notes file, a JSON document, a
// source tree, a CSV), made a git repository with one commit when git is
// installed.
var docFixture = map[string]string{
	"notes.txt":        "alpha\nbeta\ngamma\n",
	"a.txt":            "a\n",
	"b.txt":            "b\n",
	"data.json":        `{"name": "shoal", "ports": [80, 443], "ready": true}` + "\n",
	"data.csv":         "name,count\napi,3\nweb,2\n",
	"data.yaml":        "name: shoal\nready: true\n",
	"config.toml":      "version = 1\n[package]\nname = \"demo\"\n",
	"README.md":        "# demo\n\nA demo project.\nIt has notes.\nAnd a source tree.\nTODO: more.\n",
	"build.log":        "ok\n",
	"old.log":          "old\n",
	"scratch.txt":      "scratch\n",
	"src/main.go":      "package main\n\nfunc main() {}\n",
	"src/lib.go":       "package main\n",
	"logs/app.log":     "start\nerror: x\nstop\n",
	"artifact":         "bytes\n",
	"input.txt":        "line one\nline two\n",
	"scripts/hello.sl": "echo \"hello from a script\"\n",
	"build.shl":        "echo \"building {args}\"\n",
	"server.log":       "GET /\nGET /health\nPOST /items\nGET /items\n",
	"old.txt":          "old\n",
	"assets/logo.svg":  "<svg/>\n",
	"build/out.o":      "obj\n",
	"dist/app":         "app\n",
	"archive/.keep":    "",
	"api/main.go":      "package api\n",
	"Cargo.toml":       "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
	"Cargo.lock":       "version = 3\n\n[[package]]\nname = \"demo\"\nversion = \"0.1.0\"\n",
	"src/lib.rs":       "pub fn demo() {}\n",
}

// seedFixture writes docFixture (and extra) into dir and, when git is on
// PATH, commits it.
func seedFixture(t testing.TB, dir string, extra map[string]string) {
	t.Helper()
	write := func(name, body string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(name, "bin/") || strings.HasPrefix(name, "vendor/") {
			mode = 0o755 // stand-in programs
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range docFixture {
		write(name, body)
	}
	for name, body := range extra {
		if !strings.HasPrefix(name, "../") {
			write(name, body)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=doc", "-c", "user.email=doc@example.invalid", "commit", "-q", "-m", "fixture"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// docEnv gives the harness a private HOME and XDG directories, so no
// example reads or writes the person's own configuration, history or trust.
func docEnv(t *testing.T) {
	t.Helper()
	root := t.TempDir()
	// cargo and rustc are rustup's proxies: they find the toolchain through
	// the person's HOME unless told where it is.
	if home, err := os.UserHomeDir(); err == nil {
		for k, sub := range map[string]string{"RUSTUP_HOME": ".rustup", "CARGO_HOME": ".cargo"} {
			if os.Getenv(k) == "" {
				t.Setenv(k, filepath.Join(home, sub))
			}
		}
	}
	for _, kv := range [][2]string{
		{"HOME", "home"}, {"XDG_CONFIG_HOME", "config"}, {"XDG_STATE_HOME", "state"},
		{"XDG_DATA_HOME", "data"}, {"XDG_CACHE_HOME", "cache"},
	} {
		p := filepath.Join(root, kv[1])
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv(kv[0], p)
	}
	// The file `help source` reads.
	aliases := filepath.Join(root, "home", ".config", "shoal", "aliases.shl")
	if err := os.MkdirAll(filepath.Dir(aliases), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(aliases, []byte("alias ll = ls --all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"SHOAL_SESSION", "SHOAL_TOKEN", "SHOAL_SOCKET", "SHOAL_HISTORY", "NO_COLOR"} {
		t.Setenv(k, "") // restored after the test
		if err := os.Unsetenv(k); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(root, "gitconfig"))
}

// exampleResult is how one program fared.
type exampleResult struct {
	parseErr error // it did not parse
	evalErr  error // it raised an error
	stdout   string
}

func (r exampleResult) ok() bool { return r.parseErr == nil && r.evalErr == nil }

// reason is one line saying why it failed.
func (r exampleResult) reason() string {
	if r.parseErr != nil {
		return "parse: " + firstLine(r.parseErr.Error())
	}
	if r.evalErr != nil {
		var e *value.Error
		if errors.As(r.evalErr, &e) {
			return e.Code + ": " + firstLine(e.Msg)
		}
		return firstLine(r.evalErr.Error())
	}
	return "ok"
}

// maxExampleOutput bounds what the harness keeps of an example's output.
const maxExampleOutput = 1 << 20

// cappedBuffer keeps the first maxExampleOutput bytes written to it and
// drops the rest, so a runaway example cannot grow the test's memory.
type cappedBuffer struct{ b bytes.Buffer }

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := maxExampleOutput - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string { return c.b.String() }

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// parseExample parses src as `shoal -c` would (no bindings yet).
func parseExample(src string) error {
	_, err := syntax.Parse(src, syntax.ParseOptions{})
	return err
}

// runExample runs prelude then src in dir as `shoal -c` runs a program:
// the CLI's configuration, trust and adapters, output captured. `exit N`
// ends it without an error.
func runExample(t *testing.T, dir, prelude, src string) exampleResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
	defer cancel()
	stdout, stderr := &cappedBuffer{}, &cappedBuffer{}
	tr := newCLITrust(io.Discard)
	cfg, err := languageConfig(dir, tr)
	if err != nil {
		t.Fatalf("configuration: %v", err)
	}
	in, err := eval.New(eval.Options{Registry: registry(), Host: host.NewOS(host.AllowAll), Dir: dir, Stdout: stdout, Stderr: stderr,
		Display: value.Human, Config: cfg, Reef: true, ProjectTrust: tr, Adapters: sessionAdapters(io.Discard)})
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	defer in.Close()
	if prelude != "" {
		prelude = strings.ReplaceAll(prelude, "@DIR@", dir)
		p, err := syntax.Parse(prelude, syntax.ParseOptions{IsBound: in.IsBound})
		if err != nil {
			t.Fatalf("prelude: %v", err)
		}
		if _, err := in.EvalProgram(ctx, p); err != nil {
			t.Fatalf("prelude: %v", err)
		}
	}
	prog, err := syntax.Parse(src, syntax.ParseOptions{IsBound: in.IsBound})
	if err != nil {
		return exampleResult{parseErr: err}
	}
	_, err = in.EvalProgram(ctx, prog)
	if _, ok := in.ExitRequested(); ok {
		err = nil
	}
	return exampleResult{evalErr: err, stdout: stdout.String()}
}

// checkExample checks one extracted example in a fresh fixture directory
// and returns "" or why it failed.
func checkExample(t *testing.T, ex docexamples.Example, prelude string, extra map[string]string) string {
	t.Helper()
	switch ex.Mode {
	case docexamples.NoRun:
		if err := parseExample(ex.Src); err != nil {
			return "parse: " + firstLine(err.Error())
		}
		return ""
	case docexamples.Errors:
		for _, line := range docexamples.Lines(ex.Src) {
			dir := fixtureDir(t, extra)
			r := runExample(t, dir, prelude, line)
			if r.parseErr != nil {
				return fmt.Sprintf("%q: parse: %s", line, firstLine(r.parseErr.Error()))
			}
			if r.evalErr == nil {
				return fmt.Sprintf("%q: an error example ran without an error", line)
			}
		}
		return ""
	}
	r := runExample(t, fixtureDir(t, extra), prelude, ex.Src)
	if !r.ok() {
		return r.reason()
	}
	return ""
}

// fixtureDir is a fresh directory (symlinks resolved) holding the
// fixture: a copy of a template seeded once per test (git is slow to
// start a few hundred times).
func fixtureDir(t *testing.T, extra map[string]string) string {
	t.Helper()
	tmpl, ok := fixtureTemplates[t.Name()]
	if !ok {
		tmpl = t.TempDir()
		seedFixture(t, tmpl, extra)
		fixtureTemplates[t.Name()] = tmpl
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The project is a directory named shoal, so its siblings (extra
	// names that start with ../) can be seeded beside it.
	dir := filepath.Join(root, "shoal")
	if err := os.CopyFS(dir, os.DirFS(tmpl)); err != nil {
		t.Fatalf("copying the fixture: %v", err)
	}
	for name, body := range extra {
		if rel, ok := strings.CutPrefix(name, "../"); ok {
			p := filepath.Join(root, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// fixtureTemplates are the seeded templates, by test name (a test's
// extra files are fixed for the whole test).
var fixtureTemplates = map[string]string{}

// TestHelpExamplesRun: every example help shows (topics, builtins,
// functions, methods) parses and runs without an error.
func TestHelpExamplesRun(t *testing.T) {
	docEnv(t)
	exs := registry().HelpExamples()
	if len(exs) < 100 {
		t.Fatalf("only %d help examples: HelpExamples lost some", len(exs))
	}
	for _, ex := range exs {
		if why := helpNoRun[ex.Where]; why != "" {
			if err := parseExample(ex.Src); err != nil {
				t.Errorf("help %s: example does not parse: %v\n%s", ex.Where, err, ex.Src)
			}
			continue
		}
		start := time.Now()
		r := runExample(t, fixtureDir(t, nil), "", ex.Src)
		if d := time.Since(start); d > 3*time.Second {
			t.Logf("help %s took %v", ex.Where, d)
		}
		if !r.ok() {
			t.Errorf("help %s: %s\n%s", ex.Where, r.reason(), indent(ex.Src))
		}
	}
}

// helpNoRun are the help examples that are only parsed, each with why it
// cannot run in a test's directory.
var helpNoRun = map[string]string{
	"builtin history":  "reads the journal, which only a kernel session keeps",
	"builtin journal":  "reads the journal, which only a kernel session keeps",
	"builtin undo":     "reverses a journal entry, which only a kernel session keeps",
	"builtin interact": "hands a program the terminal; a test has none",
	"builtin open":     "starts the desktop's opener",
	"builtin bg":       "needs a job stopped with Ctrl-Z",
	"function watch":   "waits for a filesystem change",
}

// docFiles are the documents whose ```shoal fences must run.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs: %v", err)
	}
	return append(files, "../../README.md")
}

// TestDocExamplesRun: every ```shoal fence in docs/*.md and README.md runs
// (or, marked no-run with a reason, parses; marked error, fails line by
// line).
func TestDocExamplesRun(t *testing.T) {
	docEnv(t)
	n := 0
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		exs, err := docexamples.Extract(filepath.Base(f), string(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range exs {
			n++
			if why := checkExample(t, ex, "", nil); why != "" {
				t.Errorf("%s (%s): %s\n%s", ex.Name(), ex.Mode, why, indent(ex.Src))
			}
		}
	}
	if n == 0 {
		t.Fatal("no ```shoal examples found in the docs")
	}
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }
