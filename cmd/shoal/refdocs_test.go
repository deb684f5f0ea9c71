package main

// The reference's user documentation as a measurement: with
// SHOAL_REFDOCS naming a checkout of the reference (a directory holding
// site/content/docs, that directory itself, or a bare git repository),
// TestRefDocs extracts every ```shoal fence of its pages, runs each the
// way TestDocExamplesRun does and prints the pass rate with one reason
// per failure. Nothing of those pages is kept in this repository; the
// test skips without the variable. What counts as passing is in
// docs/examples.md.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/docexamples"
	"github.com/shoalgo/shoal/internal/secretstore"
	"github.com/shoalgo/shoal/internal/syntax"
)

// refDocsFloor is the pass rate, in percent, below which TestRefDocs fails.
const refDocsFloor = 92.0

// refDocsPages reads the reference's pages: name → text.
func refDocsPages(t *testing.T, src string) map[string]string {
	t.Helper()
	pages := map[string]string{}
	for _, dir := range []string{filepath.Join(src, "site", "content", "docs"), src} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		if len(files) == 0 {
			continue
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			pages[filepath.Base(f)] = string(data)
		}
		return pages
	}
	// A bare git repository: read the pages at HEAD.
	out, err := exec.Command("git", "--git-dir", src, "ls-tree", "--name-only", "HEAD", "site/content/docs/").Output()
	if err != nil {
		t.Fatalf("SHOAL_REFDOCS=%s: neither a docs directory nor a git repository: %v", src, err)
	}
	for _, name := range strings.Fields(string(out)) {
		if !strings.HasSuffix(name, ".md") {
			continue
		}
		data, err := exec.Command("git", "--git-dir", src, "show", "HEAD:"+name).Output()
		if err != nil {
			t.Fatalf("git show %s: %v", name, err)
		}
		pages[filepath.Base(name)] = string(data)
	}
	return pages
}

// TestRefDocs measures how many of the reference's documented examples
// run in Shoal (SHOAL_REFDOCS; see docs/examples.md).
func TestRefDocs(t *testing.T) {
	src := os.Getenv("SHOAL_REFDOCS")
	if src == "" {
		t.Skip("SHOAL_REFDOCS is not set: the reference's documentation is not part of this repository")
	}
	pages := refDocsPages(t, src)
	docEnv(t)
	helpers := filepath.Join(os.Getenv("HOME"), ".config", "shoal", "helpers.shl")
	if err := os.WriteFile(helpers, []byte("fn greet(who) { \"hello {who}\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The secret and the loopback server the secret.get example uses.
	if err := secretstore.Set(secretstore.Dir(os.Environ()), "api-token", []byte("test-token")); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, `{"items": []}`)
	}))
	defer srv.Close()
	prelude := strings.ReplaceAll(refPrelude, "@URL@", srv.URL+"/")
	var names []string
	for n := range pages {
		names = append(names, n)
	}
	sort.Strings(names)
	total, passed := 0, 0
	var failures []string
	for _, name := range names {
		exs, err := docexamples.ExtractLenient(name, pages[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, ex := range exs {
			total++
			why := checkRefExample(t, ex, prelude)
			if why == "" {
				passed++
				continue
			}
			failures = append(failures, fmt.Sprintf("%s: %s", ex.Name(), why))
		}
	}
	if total == 0 {
		t.Fatalf("SHOAL_REFDOCS=%s: no ```shoal fences found", src)
	}
	rate := 100 * float64(passed) / float64(total)
	var b strings.Builder
	fmt.Fprintf(&b, "refdocs: %d of %d examples run (%.1f%%)\n", passed, total, rate)
	for _, f := range failures {
		b.WriteString("  FAIL " + f + "\n")
	}
	fmt.Print(b.String())
	if rate < refDocsFloor {
		t.Errorf("refdocs pass rate %.1f%% is below %.0f%%", rate, refDocsFloor)
	}
}

// checkRefExample runs one of the reference's examples: "" when it runs.
// A reference fence often lists alternatives rather than a sequence
// (`rm --recursive build` then `rm --permanent --recursive build`), so a
// fence that fails as one program passes when each of its statements
// runs on its own in a fresh directory, after the fence's declarations
// before it. A fence whose point is an error (refExpectedErrors) passes
// when it raises one.
func checkRefExample(t *testing.T, ex docexamples.Example, prelude string) string {
	t.Helper()
	if want, ok := refExpectedErrors[ex.Name()]; ok {
		r := runExample(t, fixtureDir(t, refFixture), prelude, ex.Src)
		if r.ok() {
			return "documented as an error (" + want + ") but ran"
		}
		return ""
	}
	why := checkExample(t, ex, prelude, refFixture)
	if why == "" || strings.HasPrefix(why, "parse:") {
		return why
	}
	prog, err := syntax.Parse(ex.Src, syntax.ParseOptions{})
	if err != nil || len(prog.Stmts) < 2 {
		return why
	}
	var decls strings.Builder
	for _, st := range prog.Stmts {
		sp := st.Pos()
		text := ex.Src[sp.Start:sp.End]
		if isDecl(st) {
			decls.WriteString(text + "\n")
			continue
		}
		r := runExample(t, fixtureDir(t, refFixture), prelude, decls.String()+text)
		if !r.ok() {
			return why
		}
	}
	return ""
}

// isDecl reports a statement later statements may depend on: a binding,
// a function, an alias, a use.
func isDecl(st syntax.Stmt) bool {
	switch st.(type) {
	case *syntax.LetStmt, *syntax.FnStmt, *syntax.AliasStmt, *syntax.UseStmt:
		return true
	}
	return false
}

// refExpectedErrors are the reference's examples whose point is an error,
// by FILE:LINE, with the error their text says they show. Each passes
// only when it raises an error.
var refExpectedErrors = map[string]string{
	"adapters.md:106":                "--jobs \"many\" fails before cargo starts",
	"adapters.md:115":                "a made-up flag reaches git, which refuses it",
	"grammar-reference.md:210":       "comparisons do not chain: a parse error",
	"namespaces-reference.md:404":    "a namespace function must be called; an unknown method",
	"value-methods-reference.md:652": "awaiting a cancelled task gives its error",
}

// refPrelude binds the names the reference's examples use without
// defining them (their prose says what each stands for), and puts the
// fixture's stand-in programs first on PATH.
const refPrelude = `env.PATH = "@DIR@/bin:" + env.PATH
let value = -7
let name = "shoal"
let n = 5
let cpu = 130
let url = "@URL@"
let user = {profile: {name: "Ada", display_name: "ada"}}
let result = {ok: true, status: 0}
let row = {name: "api", keys: ["name"]}
let report = {ok: true, count: 3}
let items = (1..13).collect().map(i => {name: "item{i}", n: i})
let rows = [
    {name: "web", type: "file", status: 200, ready: true, modified: t"2026-07-02T00:00:00Z"},
    {name: "api", type: "dir", status: 503, ready: false, modified: t"2026-07-01T00:00:00Z"},
]
let services = [{name: "api", port: 8080}, {name: "web", port: 3000}]
let projects = [{name: "a", members: ["x", "y"]}, {name: "b", members: ["z"]}]
let paths = [path("notes.txt"), path("a.txt")]
let words = ["Alpha", "alpha", "Beta"]
let p = path("src/main.rs")
fn expensive() { [1, 2, 3] }
let transform = x => {x: x, seen: true}
fn risky() { 42 }
fn fetch() { "fetched" }
fn slow_work() { sleep 2s; "done" }
`

// refFixture are the files and stand-in programs the reference's
// examples expect beyond docFixture: files they name, a sibling project,
// and programs that need an account, a cluster or a remote host (gh,
// kubectl, ssh), are not installed here (rg, deno, ruby) or are
// placeholders (tool, consumer, xdg-open).
var refFixture = map[string]string{
	"a.bin":                   "\x00\x01",
	"b.bin":                   "\x02\x03",
	"input.bin":               "\x00\x01\x02",
	"input":                   "input bytes\n",
	"data.db":                 "db\n",
	"src/main.rs":             "fn main() {}\n",
	"crates/core/lib.rs":      "pub fn core() {}\n",
	"crates/core/lib_test.rs": "#[test] fn t() {}\n",
	"target/doc/index.html":   "<html></html>\n",
	"script.py":               "import sys\nprint(sys.argv[1:])\n",
	"tool.shl":                "echo \"tool {args}\"\n",
	"lib/deploy.shl":          "export fn build(target) { \"built {target}\" }\n",
	"scripts/check.py":        "print('checked')\n",
	"vendor/tool":             "#!/bin/sh\necho \"vendor tool $*\"\n",
	"bin/gh":                  "#!/bin/sh\necho '[]'\n",
	"bin/rg":                  "#!/bin/sh\nexit 0\n",
	"bin/kubectl":             "#!/bin/sh\necho NAME\necho widget-1\n",
	"bin/tool":                "#!/bin/sh\necho tool output\necho tool diagnostics >&2\n",
	"bin/consumer":            "#!/bin/sh\ncat >/dev/null\necho consumed\n",
	"bin/xdg-open":            "#!/bin/sh\nexit 0\n",
	"bin/ssh":                 "#!/bin/sh\necho \"ssh $*\"\n",
	"bin/deno":                "#!/bin/sh\necho \"deno $*\"\n",
	"bin/ruby":                "#!/bin/sh\necho \"ruby $*\"\n",
	"tools/build.ts":          "console.log('built')\n",
	"local.rb":                "puts 'local'\n",
	"backup/.keep":            "",
	"service/package.json":    `{"name": "service", "scripts": {"test": "echo ok"}}` + "\n",
	"../service/package.json": `{"name": "service", "scripts": {"test": "echo ok"}}` + "\n",
	"../shared/config.toml":   "shared = true\n",
}
