package reef

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// osFS is the test's FS: the real files under a temp dir.
type osFS struct{}

func (osFS) Stat(p string) (fs.FileInfo, error)      { return os.Stat(p) }
func (osFS) ReadFile(p string) ([]byte, error)       { return os.ReadFile(p) }
func (osFS) ReadDir(p string) ([]fs.DirEntry, error) { return os.ReadDir(p) }

func write(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func TestVersionOrder(t *testing.T) {
	order := []string{"unknown", "beta", "nightly", "1.2.0-rc1", "1.2", "1.2.1", "1.10", "22"}
	for i := range order {
		for j := range order {
			got := ParseVersion(order[i]).Compare(ParseVersion(order[j]))
			want := cmpInt(i, j)
			if got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
	if ParseVersion("22").Compare(ParseVersion("22.0.0")) != 0 {
		t.Error("22 and 22.0.0 should compare equal")
	}
	if v := ParseVersion("v3.12.4+build7"); v.Compare(ParseVersion("3.12.4")) != 0 {
		t.Errorf("v3.12.4+build7 = %+v", v)
	}
}

func TestConstraintSatisfied(t *testing.T) {
	cases := []struct {
		c, v string
		ok   bool
	}{
		{"*", "unknown", true}, {"", "1.0", true}, {"latest", "unknown", true},
		{"22", "22.3.0", true}, {"22", "23.0", false}, {"22", "unknown", false},
		{"3.12", "3.12.4", true}, {"3.12", "3.1", false}, {"v22.3", "22.3.1", true},
		{"nightly", "nightly-2026-01-01", true}, {"nightly", "1.0", false},
		{"^1.2", "1.2.3", false}, // not a semver range: a raw prefix
	}
	for _, c := range cases {
		if got := ParseConstraint(c.c).Satisfied(ParseVersion(c.v)); got != c.ok {
			t.Errorf("%q satisfied by %q = %v, want %v", c.c, c.v, got, c.ok)
		}
	}
}

func TestRefine(t *testing.T) {
	cases := []struct{ near, far, want string }{
		{"22", "*", "22"}, {"22", "22.3", "22.3"}, {"22.3", "22", "22.3"}, {"22", "20", "!"},
		{"*", "3.12", "3.12"}, {"latest", "1", "1"}, {"nightly", "night", "nightly"}, {"1", "beta", "!"},
	}
	for _, c := range cases {
		got, ok := Refine(ParseConstraint(c.near), ParseConstraint(c.far))
		s := got.String()
		if !ok {
			s = "!"
		}
		if s != c.want {
			t.Errorf("Refine(%s, %s) = %s, want %s", c.near, c.far, s, c.want)
		}
	}
}

func TestParseManifests(t *testing.T) {
	m, err := ParseNative("a", []byte(`[tools]
node = "22"
rg = "*"
go = { provider = "mise" }
deno = { version = "1.46", provider = "mise" }
[runners]
py = "python"
ts = { tool = "deno", args = ["run"] }
[options]
hermetic = true
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Tools); got != 4 {
		t.Fatalf("tools = %d", got)
	}
	if r, _ := m.Tool("go"); r.Constraint != "*" || r.Provider != "mise" {
		t.Errorf("go = %+v", r)
	}
	if r, _ := m.Tool("deno"); r.Constraint != "1.46" {
		t.Errorf("deno = %+v", r)
	}
	if m.Runners["ts"].Tool != "deno" || len(m.Runners["ts"].Args) != 1 || !m.Hermetic {
		t.Errorf("runners/options = %+v %v", m.Runners, m.Hermetic)
	}
	if _, err := ParseNative("bad", []byte("tools = 3")); err == nil || !strings.Contains(err.Error(), "not a table") {
		t.Errorf("tools = 3: %v", err)
	}
	if _, err := ParseNative("bad", []byte("[[[")); err == nil || !strings.Contains(err.Error(), "parsing manifest bad") {
		t.Errorf("malformed: %v", err)
	}
	mise, err := ParseMise("m", []byte("[tools]\nnode = [\"20\", \"18\"]\npython = { version = \"3.11\" }\nrg = \"14\"\nodd = 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := mise.Tool("node"); r.Constraint != "20" || len(mise.Tools) != 3 {
		t.Errorf("mise = %+v", mise.Tools)
	}
	tv, _ := ParseToolVersions("t", []byte("# c\nnodejs 20.1 18 # fallback\n\nruby  3.3\nlonely\n"))
	if r, _ := tv.Tool("nodejs"); r.Constraint != "20.1" || len(tv.Tools) != 2 {
		t.Errorf("tool-versions = %+v", tv.Tools)
	}
	u, _ := ParseUser("u", []byte("[prompt]\nx = 1\n[reef.tools]\njq = \"1.7\"\n"))
	if r, _ := u.Tool("jq"); r.Constraint != "1.7" {
		t.Errorf("user = %+v", u.Tools)
	}
}

func TestDiscoverWalksUpAndConflicts(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".reef.toml"), "[tools]\nnode = \"22\"\nrg = \"*\"\n", 0o644)
	write(t, filepath.Join(root, "a", "mise.toml"), "[tools]\nnode = \"22.3\"\n", 0o644)
	write(t, filepath.Join(root, "a", "b", ".tool-versions"), "node 20\n", 0o644)
	write(t, filepath.Join(root, "a", "runners-only", ".reef.toml"), "[runners]\npy = \"python\"\n", 0o644)
	write(t, filepath.Join(root, "a", "broken", ".reef.toml"), "[[[", 0o644)
	user := filepath.Join(root, "cfg", "shoal.toml")
	write(t, user, "[reef.tools]\nrg = \"14\"\n", 0o644)

	c, _ := Discover(osFS{}, filepath.Join(root, "a"), user, TrustEverything)
	d, ok, err := c.Decide("node")
	if !ok || err != nil || d.Constraint.String() != "22.3" || d.Scope != ScopeReef || len(d.Mentions) != 2 {
		t.Errorf("node from a = %+v %v %v", d, ok, err)
	}
	if d, _, _ := c.Decide("rg"); d.Constraint.String() != "14" || len(d.Mentions) != 2 {
		t.Errorf("rg refines with the user scope: %+v", d)
	}
	if c.LockPath() != filepath.Join(root, "reef.lock") {
		t.Errorf("lock path = %s", c.LockPath())
	}
	c, _ = Discover(osFS{}, filepath.Join(root, "a", "b"), "", TrustEverything)
	_, _, err = c.Decide("node")
	var re *Error
	if !errors.As(err, &re) || re.Code != CodeConflict || !strings.Contains(re.Msg, ".tool-versions") {
		t.Errorf("conflict: %v", err)
	}
	c, _ = Discover(osFS{}, filepath.Join(root, "a", "runners-only"), "", TrustEverything)
	if len(c.Scopes) != 2 { // runners-only skipped; a/mise.toml and root remain
		t.Errorf("runners-only scopes = %d", len(c.Scopes))
	}
	c, skipped := Discover(osFS{}, filepath.Join(root, "a", "broken"), "", TrustEverything)
	if len(skipped) != 1 || len(c.Scopes) != 2 {
		t.Errorf("broken: skipped %v, scopes %d", skipped, len(c.Scopes))
	}
	key := ChainKey(osFS{}, filepath.Join(root, "a"), user, TrustEverything)
	time.Sleep(10 * time.Millisecond)
	write(t, filepath.Join(root, ".reef.toml"), "[tools]\nnode = \"22\"\n", 0o644)
	if ChainKey(osFS{}, filepath.Join(root, "a"), user, TrustEverything) == key {
		t.Error("editing a manifest did not change the chain key")
	}
	over := c.WithOverrides([]Scope{Override(map[string]string{"node": "18"})})
	if d, _, err := over.Decide("node"); err == nil {
		t.Errorf("override 18 against 22.3 should conflict: %+v", d)
	}
}

func TestResolveLockAndPolicy(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	write(t, filepath.Join(bin, "faketool"), "#!/bin/sh\necho faketool 2.4.1\n", 0o755)
	write(t, filepath.Join(bin, "notexec"), "x", 0o644)
	write(t, filepath.Join(root, ".reef.toml"), "[tools]\nfaketool = \"2\"\nnotexec = \"*\"\n", 0o644)
	env := Env{Dir: root, Path: []string{bin}}
	probes := 0
	r := &Resolver{FS: osFS{}, Probe: func(p string) ([]byte, error) { probes++; return []byte("faketool 2.4.1\n"), nil }}
	c, _ := Discover(osFS{}, root, "", TrustEverything)
	d, _, _ := c.Decide("faketool")
	lock := NewLock()
	var re *Error
	if _, err := r.Resolve(d, env, lock, Script, false); !errors.As(err, &re) || re.Code != CodeUnlocked {
		t.Fatalf("script, no lock: %v", err)
	}
	b, err := r.Resolve(d, env, lock, Interactive, false)
	if err != nil || b.Version != "2.4.1" || b.Scope != ScopeReef || b.Provider != "system" || !b.Locked || len(b.Hash) != 64 {
		t.Fatalf("interactive: %+v %v", b, err)
	}
	if probes != 1 {
		t.Errorf("probes = %d", probes)
	}
	// The lock round-trips and then serves a script.
	lock2, err := ParseLock("reef.lock", lock.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if b2, err := r.Resolve(d, env, lock2, Script, false); err != nil || b2.Path != b.Path || b2.Locked {
		t.Errorf("script with lock: %+v %v", b2, err)
	}
	write(t, filepath.Join(bin, "faketool"), "#!/bin/sh\necho changed\n", 0o755)
	if _, err := r.Resolve(d, env, lock2, Script, false); !errors.As(err, &re) || re.Code != CodeDrift {
		t.Errorf("after rewrite: %v", err)
	}
	if f := r.Doctor(c, env, lock2, nil); len(f) < 1 || f[0].Status != "drift" {
		t.Errorf("doctor = %+v", f)
	}
	if _, err := r.Resolve(d, env, lock2, Script, true); err != nil {
		t.Errorf("refresh: %v", err)
	}
	dn, _, _ := c.Decide("notexec")
	if _, err := r.Resolve(dn, env, lock, Interactive, false); !errors.As(err, &re) || re.Code != CodeNotFound {
		t.Errorf("not executable: %v", err)
	}
	d9, _, _ := Chain{Scopes: []Scope{Override(map[string]string{"faketool": "9"})}}.decide("faketool")
	if _, err := r.Resolve(d9, env, lock, Interactive, false); !errors.As(err, &re) || re.Code != CodeNotFound {
		t.Errorf("unsatisfiable: %v", err)
	}
}

func (c Chain) decide(n string) (Decision, bool, error) { return c.Decide(n) }

func TestProvidersAndRanking(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	for _, p := range []string{
		"proj/node_modules/.bin/tsc", "proj/.venv/bin/black",
		"home/.local/share/mise/installs/node/20.11.0/bin/node", "home/.local/share/mise/installs/node/22.3.0/bin/node",
		"home/.cargo/bin/rg", "ambient/node",
	} {
		write(t, filepath.Join(root, p), "x", 0o755)
	}
	env := Env{Dir: filepath.Join(root, "proj", "sub"), Home: home, Path: []string{filepath.Join(root, "ambient")}, SystemRoots: []string{},
		LocalRoots: []string{filepath.Join(root, "proj")}}
	got := map[string]string{}
	for _, tool := range []string{"tsc", "black", "rg"} {
		cs := AllCandidates(osFS{}, env, tool)
		if len(cs) == 0 {
			t.Fatalf("%s: no candidates", tool)
		}
		got[tool] = cs[0].Provider
	}
	if got["tsc"] != "npm-local" || got["black"] != "venv" || got["rg"] != "cargo" {
		t.Errorf("providers = %v", got)
	}
	r := &Resolver{FS: osFS{}}
	c, err := r.Select(Decision{Tool: "node", Constraint: ParseConstraint("*")}, env)
	if err != nil || c.Provider != "mise" || c.Version.String() != "22.3.0" {
		t.Errorf("node * = %+v %v", c, err)
	}
	c, err = r.Select(Decision{Tool: "node", Constraint: ParseConstraint("20")}, env)
	if err != nil || c.Version.String() != "20.11.0" {
		t.Errorf("node 20 = %+v %v", c, err)
	}
	c, err = r.Select(Decision{Tool: "node", Constraint: ParseConstraint("*"), Provider: "system"}, env)
	if err != nil || c.Scope != "ambient" {
		t.Errorf("node pinned to system = %+v %v", c, err)
	}
	if v := VersionFromOutput([]byte("jq-1.7.1\n")); v.String() != "1.7.1" {
		t.Errorf("jq-1.7.1 → %s", v)
	}
	if v := VersionFromOutput([]byte("tool version 7\n")); v.String() != "7" {
		t.Errorf("bare integer → %s", v)
	}
}

func TestDoctorOrphanAndShadowed(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".reef.toml"), "[tools]\nsh = \"*\"\n", 0o644)
	write(t, filepath.Join(root, "fake-sh"), "x", 0o755)
	write(t, filepath.Join(root, "amb", "sh"), "y", 0o755)
	c, _ := Discover(osFS{}, root, "", TrustEverything)
	lock, err := ParseLock("l", []byte("[tool.sh]\nname = \"sh\"\nversion = \"1.0.0\"\nprovider = \"mise\"\npath = \""+
		filepath.Join(root, "fake-sh")+"\"\nblake3 = \"deadbeef\"\nresolved_at = 2026-01-01T00:00:00Z\n"+
		"[tool.ghost]\npath = \"/nonexistent\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if lock.Entries["sh"].ResolvedAt != "2026-01-01T00:00:00Z" {
		t.Errorf("resolved_at = %q", lock.Entries["sh"].ResolvedAt)
	}
	r := &Resolver{FS: osFS{}}
	f := r.Doctor(c, Env{Dir: root, Path: []string{filepath.Join(root, "amb")}}, lock, []error{&ManifestError{Source: "x", Msg: "bad"}})
	var checks []string
	for _, x := range f {
		checks = append(checks, x.Check+":"+x.Name+":"+x.Status)
	}
	want := "drift:sh:drift shadowed_ambient:sh:shadowed_ambient orphan:ghost:orphan lock_path:ghost:lock_path lock_path:sh:lock_path manifest:x:malformed"
	if strings.Join(checks, " ") != want {
		t.Errorf("doctor = %s\nwant     %s", strings.Join(checks, " "), want)
	}
}

func TestAddTool(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "[tools]\nnode = \"22\"\n"},
		{"# mine\n[tools]\nrg = \"*\" # keep\n\n[options]\nhermetic = true\n", "# mine\n[tools]\nrg = \"*\" # keep\nnode = \"22\"\n\n[options]\nhermetic = true\n"},
		{"[tools]\nnode = \"18\"\n", "[tools]\nnode = \"22\"\n"},
		{"[options]\nhermetic = false", "[options]\nhermetic = false\n\n[tools]\nnode = \"22\"\n"},
	}
	for _, c := range cases {
		got, err := AddTool("m", []byte(c.in), "node", "22")
		if err != nil || string(got) != c.want {
			t.Errorf("AddTool(%q) = %q, %v\nwant %q", c.in, got, err, c.want)
		}
	}
	got, err := AddTool("m", []byte("tools = { rg = \"*\" }\n"), "node", "22")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := ParseNative("m", got)
	if r, _ := m.Tool("node"); r.Constraint != "22" || len(m.Tools) != 2 {
		t.Errorf("inline tools: %q", got)
	}
	if _, err := AddTool("m", []byte("tools = \"x\""), "node", "22"); err == nil {
		t.Error("non-table tools accepted")
	}
	if _, err := AddTool("m", []byte("[[["), "node", "22"); err == nil || !strings.Contains(err.Error(), "parsing manifest") {
		t.Errorf("malformed: %v", err)
	}
}

// BenchmarkChainKey is the per-spawn cost of checking that the cached
// chain is current: a stat of each candidate manifest from a directory
// four levels below the temp dir up to /.
//
//	go test -run '^$' -bench ChainKey -benchmem -count 3 ./internal/reef/
func BenchmarkChainKey(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "a", "b", "c")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "..", ".reef.toml"), []byte("[tools]\nsh = \"*\"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ChainKey(osFS{}, dir, "", TrustEverything) == "" {
			b.Fatal("no manifest seen")
		}
	}
}

type osViewFS struct{ osFS }

func (osViewFS) MkdirAll(p string) error           { return os.MkdirAll(p, 0o700) }
func (osViewFS) Symlink(target, link string) error { return os.Symlink(target, link) }
func (osViewFS) Rename(from, to string) error      { return os.Rename(from, to) }
func (osViewFS) RemoveAll(p string) error          { return os.RemoveAll(p) }

func TestBuildView(t *testing.T) {
	root := t.TempDir()
	links := map[string]string{"node": "/opt/node/bin/node", "sh": "/bin/sh", "../evil": "/bin/sh", "rel": "bin/x"}
	a, err := BuildView(osViewFS{}, root, links, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BuildView(osViewFS{}, root, map[string]string{"sh": "/bin/sh", "node": "/opt/node/bin/node", "../evil": "/bin/sh", "rel": "bin/x"}, 2)
	if err != nil || a != b {
		t.Fatalf("same set, two views: %s %s %v", a, b, err)
	}
	ents, _ := os.ReadDir(a)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "node,sh" {
		t.Errorf("view holds %v", names)
	}
	if got, _ := os.Readlink(filepath.Join(a, "node")); got != "/opt/node/bin/node" {
		t.Errorf("node -> %s", got)
	}
	if ViewKey(map[string]string{"sh": "/bin/sh"}) == ViewKey(map[string]string{"sh": "/usr/bin/sh"}) {
		t.Error("different paths, one key")
	}
	left, _ := os.ReadDir(root)
	if len(left) != 1 {
		t.Errorf("staging left behind: %v", left)
	}
}

type osStreamFS struct {
	osFS
	chunks *int
}

func (f osStreamFS) ReadEach(p string, fn func([]byte) error) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	for len(data) > 0 {
		n := min(len(data), 1000)
		*f.chunks++
		if err := fn(data[:n]); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// TestHashStreams: an FS that streams is hashed chunk by chunk (no whole
// read, so binaries past a read bound can be locked), to the same digest.
func TestHashStreams(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	write(t, p, strings.Repeat("x", 10500), 0o755)
	whole, err := (&Resolver{FS: osFS{}}).Hash(p)
	if err != nil {
		t.Fatal(err)
	}
	chunks := 0
	streamed, err := (&Resolver{FS: osStreamFS{chunks: &chunks}}).Hash(p)
	if err != nil || streamed != whole || chunks != 11 {
		t.Errorf("streamed %s (%d chunks, %v), whole %s", streamed, chunks, err, whole)
	}
}
