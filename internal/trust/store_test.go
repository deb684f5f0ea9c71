package trust

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/reef"
)

func writeFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// TestTrustCheckAndDigestChanges: trusting a directory records its
// project files; a change to any of them (or a new one) makes it
// Changed, trusting again makes it Trusted, revoking Untrusted; the file
// is 0600 and decodes strictly.
func TestTrustCheckAndDigestChanges(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	writeFile(t, filepath.Join(proj, ".reef.toml"), "[tools]\ngit = \"*\"\n", 0o644)
	s := Open(filepath.Join(root, "state", "shoal", FileName))
	p := ReadDir(proj)
	if got := s.Check(proj, p.Digest); got != reef.Untrusted {
		t.Fatalf("before trust: %v", got)
	}
	if err := s.Err(); err != nil {
		t.Fatalf("absent store: %v", err)
	}
	if err := s.Trust(p, time.Now()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.FilePath())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("store mode: %v %v", fi, err)
	}
	if got := s.Check(proj, ReadDir(proj).Digest); got != reef.Trusted {
		t.Fatalf("after trust: %v", got)
	}
	for _, name := range reef.ProjectFiles {
		writeFile(t, filepath.Join(proj, name), "# "+name+" edited\n", 0o644)
		if got := s.Check(proj, ReadDir(proj).Digest); got != reef.Changed {
			t.Errorf("after writing %s: %v", name, got)
		}
		if err := s.Trust(ReadDir(proj), time.Now()); err != nil {
			t.Fatal(err)
		}
		if got := s.Check(proj, ReadDir(proj).Digest); got != reef.Trusted {
			t.Errorf("retrusted after %s: %v", name, got)
		}
	}
	if err := os.Remove(filepath.Join(proj, "reef.lock")); err != nil {
		t.Fatal(err)
	}
	if got := s.Check(proj, ReadDir(proj).Digest); got != reef.Changed {
		t.Errorf("after removing reef.lock: %v", got)
	}
	// Another process's store (a second Store on the same file) sees
	// the same decisions; a revoke there is seen here.
	other := Open(s.FilePath())
	if found, err := other.Revoke(proj); err != nil || !found {
		t.Fatalf("revoke: %v %v", found, err)
	}
	if got := s.Check(proj, ReadDir(proj).Digest); got != reef.Untrusted {
		t.Errorf("after revoke: %v", got)
	}
	if found, err := other.Revoke(proj); err != nil || found {
		t.Errorf("second revoke: %v %v", found, err)
	}
	es, err := s.List()
	if err != nil || len(es) != 0 {
		t.Errorf("list after revoke: %v %v", es, err)
	}
}

// TestAmend: the shell's own write carries trust over only from the
// digest recorded, or from an empty directory; anything else is refused
// and the record stays.
func TestAmend(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	writeFile(t, filepath.Join(proj, ".reef.toml"), "[tools]\n", 0o644)
	s := Open(filepath.Join(root, "state", FileName))
	p := ReadDir(proj)
	if err := s.Amend(p.Digest, p.With("reef.lock", []byte("x"))); err == nil {
		t.Error("amend of an untrusted directory passed")
	}
	if err := s.Trust(p, time.Now()); err != nil {
		t.Fatal(err)
	}
	next := p.With("reef.lock", []byte("x"))
	if err := s.Amend(reef.EmptyDigest, next); err == nil {
		t.Error("amend from the empty digest of a recorded directory passed")
	}
	if err := s.Amend(p.Digest, next); err != nil {
		t.Fatal(err)
	}
	if got := s.Check(proj, next.Digest); got != reef.Trusted {
		t.Errorf("after amend: %v", got)
	}
	if err := s.Amend(p.Digest, next.With("reef.lock", []byte("y"))); err == nil {
		t.Error("amend from a stale digest passed")
	}
	fresh := filepath.Join(root, "fresh")
	writeFile(t, filepath.Join(fresh, ".reef.toml"), "[tools]\n", 0o644)
	if err := s.Amend(reef.EmptyDigest, ReadDir(fresh)); err != nil {
		t.Errorf("amend of a directory the shell created its first file in: %v", err)
	}
}

// TestMalformedStoreTrustsNothing: every way the file can be wrong makes
// Check say Untrusted, Err say why, and writes refuse to overwrite it.
func TestMalformedStoreTrustsNothing(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	writeFile(t, filepath.Join(proj, ".reef.toml"), "[tools]\n", 0o644)
	p := ReadDir(proj)
	good, err := Encode([]Entry{entryOf(p, time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		text string
		mode os.FileMode
		want string
	}{
		"world readable":   {string(good), 0o644, "group or others"},
		"not json":         {"{", 0o600, "not a trust store"},
		"unknown member":   {strings.Replace(string(good), `"version"`, `"extra": 1, "version"`, 1), 0o600, "unknown field"},
		"trailing":         {string(good) + "{}", 0o600, "trailing"},
		"version 2":        {strings.Replace(string(good), `"version": 1`, `"version": 2`, 1), 0o600, "version 2"},
		"digest mismatch":  {strings.Replace(string(good), p.Digest, strings.Repeat("0", 64), 1), 0o600, "digest does not match"},
		"relative dir":     {strings.Replace(string(good), `"dir": "`+proj, `"dir": "rel`, 1), 0o600, "clean absolute"},
		"unknown file":     {strings.Replace(string(good), `".reef.toml"`, `"evil.sh"`, 1), 0o600, "not a project file"},
		"bad time":         {strings.Replace(string(good), `"trusted_at": "`, `"trusted_at": "x`, 1), 0o600, "trusted_at"},
		"duplicate dir":    {`{"version":1,"dirs":[` + entryJSON(t, p) + `,` + entryJSON(t, p) + `]}`, 0o600, "recorded twice"},
		"too many entries": {manyEntries(t, MaxEntries+1), 0o600, "at most"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			writeFile(t, path, c.text, c.mode)
			s := Open(path)
			if got := s.Check(proj, p.Digest); got != reef.Untrusted {
				t.Errorf("check = %v", got)
			}
			if err := s.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
			if err := s.Trust(p, time.Now()); err == nil {
				t.Error("a write replaced a malformed store")
			}
			if data, _ := os.ReadFile(path); string(data) != c.text {
				t.Error("the malformed store was changed")
			}
		})
	}
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "real.json")
		writeFile(t, target, string(good), 0o600)
		path := filepath.Join(dir, FileName)
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		s := Open(path)
		if got := s.Check(proj, p.Digest); got != reef.Untrusted || s.Err() == nil {
			t.Errorf("symlinked store: %v %v", got, s.Err())
		}
	})
	t.Run("too large", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), FileName)
		writeFile(t, path, string(good)+strings.Repeat(" ", MaxStoreBytes), 0o600)
		s := Open(path)
		if got := s.Check(proj, p.Digest); got != reef.Untrusted || s.Err() == nil || !strings.Contains(s.Err().Error(), "larger") {
			t.Errorf("large store: %v %v", got, s.Err())
		}
	})
	t.Run("no path", func(t *testing.T) {
		s := Open("")
		if got := s.Check(proj, p.Digest); got != reef.Untrusted || s.Trust(p, time.Now()) == nil {
			t.Errorf("store without a path: %v", got)
		}
	})
}

func entryJSON(t *testing.T, p *reef.Project) string {
	t.Helper()
	data, err := Encode([]Entry{entryOf(p, time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	return s[strings.Index(s, "[")+1 : strings.LastIndex(s, "]")]
}

func manyEntries(t *testing.T, n int) string {
	var b strings.Builder
	b.WriteString(`{"version":1,"dirs":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"dir":"/d/%d","digest":%q,"files":[],"trusted_at":"2026-01-01T00:00:00Z"}`, i, reef.EmptyDigest)
	}
	b.WriteString("]}")
	return b.String()
}

// TestStoreBounds: the store refuses a directory past MaxEntries and a
// path that is not clean and absolute, and keeps what it had.
func TestStoreBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	writeFile(t, path, manyEntries(t, MaxEntries), 0o600)
	s := Open(path)
	if err := s.Err(); err != nil {
		t.Fatalf("a full store: %v", err)
	}
	if got := s.Check("/d/7", reef.EmptyDigest); got != reef.Trusted {
		t.Errorf("entry of a full store: %v", got)
	}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".reef.toml"), "[tools]\n", 0o644)
	err := s.Trust(ReadDir(root), time.Now())
	if err == nil || !strings.Contains(err.Error(), "revoke some") {
		t.Errorf("one past MaxEntries: %v", err)
	}
	if found, err := s.Revoke("/d/7"); err != nil || !found {
		t.Fatalf("revoke: %v %v", found, err)
	}
	if err := s.Trust(ReadDir(root), time.Now()); err != nil {
		t.Errorf("after a revoke: %v", err)
	}
	for _, d := range []string{"", "rel", "/a/../b", "/a/", "/a\nb", strings.Repeat("/x", MaxDirBytes)} {
		if CheckDir(d) == nil {
			t.Errorf("CheckDir(%q) passed", d)
		}
	}
	if _, err := Open(filepath.Join(root, ".reef.toml", "x")).List(); err == nil {
		t.Error("a store under a regular file listed")
	}
}
