package reef

import (
	"path/filepath"
	"strings"
	"testing"
)

// The decoders take files from any repository a user enters: they must
// return an error, never panic, whatever the bytes.
func FuzzManifests(f *testing.F) {
	for _, s := range []string{"[tools]\nnode = \"22\"\n", "[tools]\nx = { version = 1 }", "tools = []",
		"[tool.sh]\npath = 3", "node 20 18\n# c", "[reef]\ntools = 1", "[runners]\npy = { args = [1] }"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseNative("f", data)
		_, _ = ParseMise("f", data)
		_, _ = ParseUser("f", data)
		_, _ = ParseToolVersions("f", data)
		if l, err := ParseLock("f", data); err == nil {
			if _, err := ParseLock("f", l.Encode()); err != nil {
				t.Fatalf("re-encoded lock does not parse: %v\n%s", err, l.Encode())
			}
		}
		if out, err := AddTool("f", data, "node", "22"); err == nil {
			m, err := ParseNative("f", out)
			if err != nil {
				t.Fatalf("edited manifest does not parse: %v\n%s", err, out)
			}
			if r, ok := m.Tool("node"); !ok || r.Constraint != "22" {
				t.Fatalf("edited manifest lost the entry: %q", out)
			}
		}
	})
}

func FuzzVersions(f *testing.F) {
	for _, s := range []string{"22", "v1.2.3-rc1+b", "latest", "*", "nightly", "1..2", "99999999999999999999"} {
		f.Add(s, s+".1")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		va, vb := ParseVersion(a), ParseVersion(b)
		if va.Compare(vb) != -vb.Compare(va) {
			t.Fatalf("Compare not antisymmetric for %q %q", a, b)
		}
		ca, cb := ParseConstraint(a), ParseConstraint(b)
		if r, ok := Refine(ca, cb); ok && r.Satisfied(vb) && !(ca.Satisfied(vb) && cb.Satisfied(vb)) {
			t.Fatalf("Refine(%q,%q)=%q satisfied by %q but an input is not", a, b, r, b)
		}
		_ = VersionFromOutput([]byte(a))
	})
}

// FuzzLockCheck: any lock text parses or errs without a panic, and every
// entry Check accepts names a clean absolute path whose base is the tool,
// under the lock's directory when its provider is project-local.
func FuzzLockCheck(f *testing.F) {
	f.Add([]byte("[tool.git]\nprovider = \"npm-local\"\npath = \"/p/proj/node_modules/.bin/git\"\n"))
	f.Add([]byte("[tool.git]\nprovider = \"system\"\npath = \"/tmp/evil/git\"\n"))
	f.Add([]byte("[tool.node]\nprovider = \"mise\"\npath = \"/h/.local/share/mise/installs/node/22/bin/node\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLock("/p/proj/reef.lock", data)
		if err != nil {
			return
		}
		env := Env{Dir: "/p/proj", Home: "/h", Path: []string{"/usr/bin", "/opt/x"}}
		for _, n := range l.Names() {
			e := l.Entries[n]
			if CheckEntry(env, l.Dir, n, e) != nil {
				continue
			}
			p := e.Path
			if !filepath.IsAbs(p) || filepath.Clean(p) != p || filepath.Base(p) != n {
				t.Fatalf("accepted %q for %q", p, n)
			}
			if (e.Provider == "npm-local" || e.Provider == "venv") && !strings.HasPrefix(p, "/p/proj/") {
				t.Fatalf("accepted a project-local %q outside the lock's directory", p)
			}
		}
	})
}
