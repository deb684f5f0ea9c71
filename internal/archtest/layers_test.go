package archtest

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/shoalgo/shoal/"

// allowed lists, per package, the project packages it may import. A project
// package missing from this table fails the test, so a new package has to
// take a place in the layering deliberately.
var allowed = map[string][]string{
	"proto":                  []string{},
	"client":                 {"proto"},
	"internal/syntax":        {},
	"internal/value":         {"internal/syntax", "proto"},
	"internal/host":          {"internal/contain", "internal/sandbox", "internal/secretstore", "internal/procfs"},
	"internal/secretstore":   {"internal/atomicfile"},
	"internal/atomicfile":    {},
	"internal/contain":       {"internal/procfs", "internal/procname"},
	"internal/procname":      {},
	"internal/procfs":        {},
	"internal/sandbox":       {},
	"internal/namespaces":    {"internal/value", "internal/syntax", "proto"},
	"internal/eval":          {"internal/syntax", "internal/value", "internal/host", "internal/namespaces", "internal/budget", "internal/leash", "internal/reef", "internal/adapters", "proto"},
	"internal/reef":          {"internal/blake3"},
	"internal/trust":         {"internal/reef", "internal/atomicfile"},
	"internal/adapters":      {"internal/value"},
	"internal/budget":        {},
	"internal/reclaim":       {},
	"internal/leash":         {"internal/syntax", "internal/host"},
	"internal/complete":      {"internal/syntax", "internal/value", "internal/namespaces", "proto"},
	"internal/events":        {"internal/budget"},
	"internal/tasks":         {"internal/budget", "proto"},
	"internal/auth":          {},
	"internal/diag":          {"internal/syntax", "internal/value"},
	"internal/kernel":        {"*"},
	"internal/conformance":   {"internal/eval", "internal/host", "internal/syntax", "internal/value", "internal/namespaces", "internal/corpusdir", "proto"},
	"internal/corpusdir":     {},
	"internal/archtest":      {},
	"internal/hostile":       {},
	"internal/repl":          {"internal/eval", "internal/host", "internal/syntax", "internal/value", "internal/diag", "internal/complete", "proto"},
	"cmd/shoal":              {"*"},
	"cmd/shoal-kernel":       {"*"},
	"cmd/shoal-token":        {"*"},
	"cmd/shoal-mcp":          {"*"},
	"cmd/shoal-secret":       {"*"},
	"internal/mcp":           {"client", "proto", "internal/version", "internal/auth", "internal/rawio"},
	"internal/rawio":         {},
	"internal/appendmap":     {},
	"internal/version":       {},
	"internal/startstack":    {},
	"internal/sysmon":        {"internal/procname"},
	"internal/diewithparent": {},
	"internal/fastpath":      {},
	"internal/memlimit":      {"internal/procfs"},
	"internal/journal":       {"internal/syntax", "proto", "internal/rawio", "internal/appendmap"},
	"internal/cas":           {"internal/blake3", "internal/appendmap"},
	"internal/blake3":        {},
	"internal/pty":           {"proto"},
	"internal/policy":        {"internal/host", "internal/leash", "internal/sandbox"},
	"internal/highlight":     {"internal/syntax"},
	"internal/lineedit":      {"internal/atomicfile", "internal/highlight", "internal/syntax", "internal/complete"},
	"internal/userconfig":    {"internal/value"},
	"internal/prompt":        {"internal/userconfig"},
	"internal/docexamples":   {},
	"internal/evaltest":      {"internal/syntax", "internal/value"},
	"internal/lib/fs":        {"internal/eval", "internal/host", "internal/leash", "internal/value"},
	"internal/lib/nav":       {"internal/eval", "internal/leash", "internal/value"},
	"internal/lib/sys":       {"internal/eval", "internal/host", "internal/leash", "internal/value"},
	"internal/lib/http":      {"internal/eval", "internal/host", "internal/leash", "internal/namespaces", "internal/value"},
	"internal/lib/secret":    {"internal/eval", "internal/host", "internal/leash", "internal/value"},
	"internal/lib/journal":   {"internal/eval", "internal/host", "internal/leash", "internal/value"},
	"internal/lib/reefcmd":   {"internal/eval", "internal/host", "internal/leash", "internal/reef", "internal/value"},
	"internal/lib/clock":     {"internal/eval", "internal/leash", "internal/value"},
	"internal/lib/term":      {"internal/eval", "internal/host", "internal/value"},
	"internal/stdlib":        {"internal/eval", "internal/lib/fs", "internal/lib/nav", "internal/lib/sys", "internal/lib/http", "internal/lib/secret", "internal/lib/journal", "internal/lib/reefcmd", "internal/lib/clock", "internal/lib/term"},
	"internal/libtest":       {"internal/eval", "internal/evaltest", "internal/host", "internal/stdlib", "internal/value"},
	"internal/lsp/protocol":  {},
	"internal/lsp":           {"internal/lsp/protocol", "internal/syntax", "internal/complete", "internal/eval", "internal/leash", "internal/value"},
	"internal/format":        {"internal/syntax"},
}

// osFree are the evaluation packages that must reach the operating system
// only through internal/host: they may not import these packages at all.
var osFree = []string{
	"internal/syntax", "internal/value", "internal/eval", "internal/namespaces",
	"internal/leash", "internal/complete", "internal/diag", "internal/events", "internal/tasks", "internal/repl",
	"internal/highlight",
	"internal/reef",
	"internal/blake3",
	"internal/adapters",
	"internal/prompt",
	"internal/lib/fs",
	"internal/lib/nav",
	"internal/lib/sys",
	"internal/lib/http",
	"internal/lib/secret",
	"internal/lib/journal",
	"internal/lib/reefcmd",
	"internal/lib/clock",
	"internal/lib/term",
	"internal/stdlib",
	"internal/libtest",
	"internal/lsp",
	"internal/lsp/protocol",
}

var osPackages = []string{"os", "os/exec", "net", "net/http", "os/user", "os/signal", "golang.org/x/sys/unix"}

// osLimited are packages that may use a few OS packages for a narrow job
// and none of the others: internal/policy opens its policy file (os) but
// resolves no path, runs nothing and dials nothing; internal/host judges
// symlinks for it. internal/journal and internal/cas open and write their
// files under the state directory (os; database/sql is not an OS package)
// and spawn, dial and resolve nothing; internal/cas also makes the file
// system calls os does not offer, or offers only at a cost per blob
// (x/sys/unix: syncfs, and a blob's temporary file written without an
// os.File).
var osLimited = map[string][]string{
	"internal/policy":  {"os"},
	"internal/journal": {"os"},
	"internal/cas":     {"os", "golang.org/x/sys/unix"},
	// secretstore opens the files of the secret store directory.
	"internal/secretstore": {"os"},
	// internal/trust opens its store and the project files it digests.
	"internal/trust": {"os"},
	// internal/userconfig opens shoal.toml and prompt.toml, nothing else.
	"internal/userconfig": {"os"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func TestImportLayers(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	out, err := exec.Command(goTool, "list", "-json=ImportPath,Imports", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		seen++
		name := strings.TrimPrefix(p.ImportPath, module)
		rules, ok := allowed[name]
		if !ok {
			t.Errorf("%s is not in the layering table of %s: add it deliberately", name, "internal/archtest")
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) {
				dep := strings.TrimPrefix(imp, module)
				if !slices.Contains(rules, "*") && !slices.Contains(rules, dep) {
					t.Errorf("%s imports %s, which its layer does not allow", name, dep)
				}
			}
			if slices.Contains(osFree, name) && slices.Contains(osPackages, imp) {
				t.Errorf("%s imports %s: only internal/host may touch the operating system", name, imp)
			}
			if lim, ok := osLimited[name]; ok && slices.Contains(osPackages, imp) && !slices.Contains(lim, imp) {
				t.Errorf("%s imports %s: it may use only %v of the OS packages", name, imp, lim)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("go list reported only %d packages", seen)
	}
}
