package reef

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// mapTrust trusts the directories it holds with the digest it holds.
type mapTrust map[string]string

func (m mapTrust) Check(dir, digest string) TrustState {
	d, ok := m[dir]
	switch {
	case !ok:
		return Untrusted
	case d != digest:
		return Changed
	}
	return Trusted
}
func (m mapTrust) Stamp() string { return strings.Repeat("x", len(m)) }

// TestDiscoverIgnoresUntrustedProjects: a project directory's manifests
// count only while the trust store holds the digest of its project files
// as they are; nil trust and a changed file make it inert and listed,
// while the user's own [reef] always counts.
func TestDiscoverIgnoresUntrustedProjects(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	write(t, filepath.Join(proj, ".reef.toml"), "[tools]\ngit = \"*\"\n", 0o644)
	write(t, filepath.Join(proj, "reef.lock"), "[tool.git]\npath = \"/x/git\"\n", 0o644)
	user := filepath.Join(root, "cfg", "shoal.toml")
	write(t, user, "[reef.tools]\nrg = \"*\"\n", 0o644)

	c, _ := Discover(osFS{}, proj, user, nil)
	if c.Constrained("git") || !c.Constrained("rg") {
		t.Fatalf("nil trust: git constrained %v, rg %v", c.Constrained("git"), c.Constrained("rg"))
	}
	if len(c.Untrusted) != 1 || c.Untrusted[0].Dir != proj || c.Untrusted[0].State != Untrusted {
		t.Fatalf("untrusted = %+v", c.Untrusted)
	}
	if n := c.Untrusted[0].Notice(); !strings.Contains(n, proj+" has a .reef.toml that is not trusted; run 'shoal trust'") {
		t.Errorf("notice = %q", n)
	}
	if n := (UntrustedDir{Dir: "/p/\x1b[2Kx", Names: []string{"mise.toml"}}).Notice(); strings.ContainsRune(n, 0x1b) || !strings.Contains(n, `"/p/\x1b[2Kx" has a mise.toml`) {
		t.Errorf("notice of a hostile name = %q", n)
	}
	if _, ok := c.LockData(filepath.Join(proj, "reef.lock")); ok {
		t.Error("an untrusted directory's lock was handed out")
	}
	if c.LockPath() != filepath.Join(root, "cfg", "reef.lock") {
		t.Errorf("lock path = %s (an untrusted directory must not receive the lock)", c.LockPath())
	}

	p := ReadProject(osFS{}, proj)
	if got := strings.Join(p.Names(), ","); got != ".reef.toml,reef.lock" {
		t.Fatalf("project files = %s", got)
	}
	tr := mapTrust{proj: p.Digest}
	c, _ = Discover(osFS{}, proj, user, tr)
	if !c.Constrained("git") || len(c.Untrusted) != 0 {
		t.Fatalf("trusted: git %v, untrusted %+v", c.Constrained("git"), c.Untrusted)
	}
	if data, ok := c.LockData(filepath.Join(proj, "reef.lock")); !ok || !strings.Contains(string(data), "/x/git") {
		t.Errorf("lock data = %q %v", data, ok)
	}
	if got := c.LocalRoots(); len(got) != 1 || got[0] != proj {
		t.Errorf("local roots = %v", got)
	}
	key := ChainKey(osFS{}, proj, user, tr)
	tr["other"] = "y" // the store changed: the stamp, so the key
	if ChainKey(osFS{}, proj, user, tr) == key {
		t.Error("a trust change left the chain key alone")
	}

	for _, name := range []string{".reef.toml", "reef.lock", ".shoal.toml", ".tool-versions"} {
		write(t, filepath.Join(proj, name), "# changed\n[tools]\ngit = \"*\"\n", 0o644)
		c, _ = Discover(osFS{}, proj, user, tr)
		if c.Constrained("git") || len(c.Untrusted) != 1 || c.Untrusted[0].State != Changed {
			t.Errorf("after %s changed: git %v, untrusted %+v", name, c.Constrained("git"), c.Untrusted)
		}
		if n := c.Untrusted[0].Notice(); !strings.Contains(n, "changed since it was trusted") {
			t.Errorf("notice = %q", n)
		}
	}
}

// TestProjectDigest: the digest covers names and contents, not order;
// With predicts the digest a write leaves.
func TestProjectDigest(t *testing.T) {
	a := []ProjectFile{{".reef.toml", "1"}, {"reef.lock", "2"}}
	b := []ProjectFile{{"reef.lock", "2"}, {".reef.toml", "1"}}
	if ProjectDigest(a) != ProjectDigest(b) {
		t.Error("order changed the digest")
	}
	for _, other := range [][]ProjectFile{
		{{".reef.toml", "1"}}, {{".reef.toml", "1"}, {"reef.lock", "3"}}, {{"mise.toml", "1"}, {"reef.lock", "2"}},
	} {
		if ProjectDigest(other) == ProjectDigest(a) {
			t.Errorf("%v digests like %v", other, a)
		}
	}
	if ProjectDigest(nil) != EmptyDigest {
		t.Errorf("ProjectDigest(nil) = %s, EmptyDigest %s", ProjectDigest(nil), EmptyDigest)
	}
	if ProjectDigest([]ProjectFile{{"unrelated", "9"}}) != EmptyDigest {
		t.Error("a file outside ProjectFiles counted")
	}
	root := t.TempDir()
	write(t, filepath.Join(root, ".reef.toml"), "[tools]\n", 0o644)
	p := ReadProject(osFS{}, root)
	n := p.With("reef.lock", []byte("lock"))
	write(t, filepath.Join(root, "reef.lock"), "lock", 0o644)
	if got := ReadProject(osFS{}, root); got.Digest != n.Digest || p.Digest == n.Digest {
		t.Errorf("With predicted %s, read %s (before %s)", n.Digest, got.Digest, p.Digest)
	}
	big := strings.Repeat("#", MaxManifestBytes+1)
	write(t, filepath.Join(root, "mise.toml"), big, 0o644)
	if got := ReadProject(osFS{}, root); len(got.Files) != 3 || !strings.HasPrefix(got.Files[1].Sum, "too-large:") {
		t.Errorf("large file = %+v", got.Files)
	}
}

// TestLocalProvidersNeedTrustedRoot: node_modules/.bin and .venv/bin are
// candidates only inside a trusted project root.
func TestLocalProvidersNeedTrustedRoot(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "proj", "node_modules", ".bin", "git"), "x", 0o755)
	write(t, filepath.Join(root, "proj", ".venv", "bin", "git"), "x", 0o755)
	env := Env{Dir: filepath.Join(root, "proj", "sub"), SystemRoots: []string{}}
	if cs := AllCandidates(osFS{}, env, "git"); len(cs) != 0 {
		t.Errorf("untrusted roots offered %+v", cs)
	}
	env.LocalRoots = []string{filepath.Join(root, "other")}
	if cs := AllCandidates(osFS{}, env, "git"); len(cs) != 0 {
		t.Errorf("another root offered %+v", cs)
	}
	env.LocalRoots = []string{filepath.Join(root, "proj")}
	if cs := AllCandidates(osFS{}, env, "git"); len(cs) != 2 || cs[0].Provider != "npm-local" || cs[1].Provider != "venv" {
		t.Errorf("trusted root offered %+v", cs)
	}
}

// TestCheckEntry: a lock may name only what its provider would find.
func TestCheckEntry(t *testing.T) {
	env := Env{Home: "/home/u", Path: []string{"/opt/tools/bin", "relative"}, SystemRoots: nil}
	lockDir := "/p/proj"
	cases := []struct {
		tool, provider, path string
		ok                   bool
	}{
		{"git", "npm-local", "/p/proj/node_modules/.bin/git", true},
		{"git", "npm-local", "/p/proj/sub/node_modules/.bin/git", true},
		{"git", "npm-local", "/p/node_modules/.bin/git", false},
		{"git", "npm-local", "/tmp/evil/node_modules/.bin/git", false},
		{"git", "npm-local", "/p/proj/bin/git", false},
		{"git", "venv", "/p/proj/.venv/bin/git", true},
		{"git", "venv", "/p/projx/.venv/bin/git", false},
		{"git", "system", "/usr/bin/git", true},
		{"git", "system", "/opt/tools/bin/git", true},
		{"git", "system", "/tmp/evil/git", false},
		{"git", "system", "relative/git", false},
		{"git", "system", "/usr/bin/../../tmp/git", false},
		{"git", "system", "/usr/bin/sh", false},
		{"rg", "cargo", "/home/u/.cargo/bin/rg", true},
		{"rg", "cargo", "/home/u/.cargo/rg", false},
		{"node", "mise", "/home/u/.local/share/mise/installs/node/22.3.0/bin/node", true},
		{"node", "mise", "/home/u/.local/share/mise/installs/node/bin/node", false},
		{"node", "mise", "/home/u/.local/share/mise/installs/node/../x/bin/node", false},
		{"git", "evil", "/usr/bin/git", false},
		{"git", "", "/usr/bin/git", false},
		{"git", "system", "", false},
	}
	for _, c := range cases {
		err := CheckEntry(env, lockDir, c.tool, LockEntry{Name: c.tool, Provider: c.provider, Path: c.path})
		var re *Error
		if c.ok != (err == nil) || (err != nil && (!errors.As(err, &re) || re.Code != CodeLockPath)) {
			t.Errorf("%s %s %s: %v (want ok %v)", c.tool, c.provider, c.path, err, c.ok)
		}
	}
	if err := CheckEntry(env, "", "git", LockEntry{Provider: "npm-local", Path: "/p/proj/node_modules/.bin/git"}); err == nil {
		t.Error("a project-local entry of a lock with no directory passed")
	}
}

// TestResolveRefusesOutsideLockPath: a lock entry with an absolute path to
// a binary outside the project is refused before it is hashed or bound,
// even when its digest matches.
func TestResolveRefusesOutsideLockPath(t *testing.T) {
	root := t.TempDir()
	evil := filepath.Join(root, "evil", "git")
	write(t, evil, "#!/bin/sh\necho evil\n", 0o755)
	proj := filepath.Join(root, "proj")
	write(t, filepath.Join(proj, ".reef.toml"), "[tools]\ngit = \"*\"\n", 0o644)
	r := &Resolver{FS: osFS{}}
	sum, err := r.Hash(evil)
	if err != nil {
		t.Fatal(err)
	}
	for _, prov := range []string{"system", "npm-local", "mise"} {
		text := "[tool.git]\nversion = \"1.0.0\"\nprovider = \"" + prov + "\"\npath = \"" + evil + "\"\nblake3 = \"" + sum + "\"\n"
		lock, err := ParseLock(filepath.Join(proj, "reef.lock"), []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if lock.Dir != proj {
			t.Fatalf("lock dir = %q", lock.Dir)
		}
		env := Env{Dir: proj, Path: []string{"/usr/bin"}, LocalRoots: []string{proj}}
		c, _ := Discover(osFS{}, proj, "", TrustEverything)
		d, _, _ := c.Decide("git")
		var re *Error
		if b, err := r.Resolve(d, env, lock, Script, false); !errors.As(err, &re) || re.Code != CodeLockPath || b.Path != "" {
			t.Errorf("%s: resolve = %+v, %v", prov, b, err)
		}
		if err := lock.Check(env); !errors.As(err, &re) || re.Code != CodeLockPath {
			t.Errorf("%s: check = %v", prov, err)
		}
	}
}
