package secretstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDir(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"HOME=/h"}, "/h/.local/share/shoal/secrets"},
		{[]string{"HOME=/h", "XDG_DATA_HOME=/d"}, "/d/shoal/secrets"},
		{[]string{"HOME=/h", "XDG_DATA_HOME=/d", "SHOAL_SECRET_DIR=/s/"}, "/s"},
		{[]string{"SHOAL_SECRET_DIR=rel", "XDG_DATA_HOME=rel2", "HOME=/h"}, "/h/.local/share/shoal/secrets"},
		{[]string{"HOME=/a", "HOME=/b"}, "/b/.local/share/shoal/secrets"},
		{nil, ""},
	} {
		if got := Dir(c.env); got != c.want {
			t.Errorf("Dir(%q) = %q, want %q", c.env, got, c.want)
		}
	}
}

// TestSetReadListDelete: a secret set is read back byte for byte from a
// private file in a private directory, listed by name, replaced whole and
// deleted (twice: a missing name is not an error).
func TestSetReadListDelete(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	if err := Set(dir, "api-token", []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if err := Set(dir, "b.key", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := Set(dir, "api-token", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(dir, "api-token"); err != nil || string(b) != "two" {
		t.Fatalf("Read = %q, %v", b, err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "api-token"): 0o600} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %o", p, st.Mode().Perm(), err, want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".set-junk"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	names, more, err := List(dir)
	if err != nil || strings.Join(names, " ") != "api-token b.key" || more != 0 {
		t.Fatalf("List = %q, %d, %v", names, more, err)
	}
	for range 2 {
		if err := Delete(dir, "api-token"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Read(dir, "api-token"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read after Delete: %v", err)
	}
	if names, _, err := List(filepath.Join(dir, "missing")); err != nil || len(names) != 0 {
		t.Fatalf("List of a missing store = %q, %v", names, err)
	}
}

// TestReadTrustsOnlyPrivateFiles: group- or world-accessible files,
// symlinks, directories and oversized secrets are refused; bad names never
// touch the disk.
func TestReadTrustsOnlyPrivateFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("tok", "m", 0o600)
	write("wide", "m", 0o604)
	write("grp", "m", 0o620)
	write("big", strings.Repeat("x", MaxBytes+1), 0o600)
	if err := os.Symlink(filepath.Join(dir, "tok"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]error{
		"wide": fs.ErrPermission, "grp": fs.ErrPermission, "link": fs.ErrPermission, "sub": fs.ErrPermission,
		"big": ErrTooLarge, "nope": fs.ErrNotExist,
	} {
		if _, err := Read(dir, name); !errors.Is(err, want) {
			t.Errorf("Read(%s) = %v, want %v", name, err, want)
		}
	}
	for _, bad := range []string{"", "../tok", "a/b", ".hidden", "sp ace", strings.Repeat("a", MaxName+1)} {
		if _, err := Read(dir, bad); err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Read(%q) = %v, want a name error", bad, err)
		}
		if err := Set(dir, bad, []byte("x")); err == nil {
			t.Errorf("Set(%q) succeeded", bad)
		}
	}
	if err := Set(dir, "huge", make([]byte, MaxBytes+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Set of a huge secret: %v", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Set(dir, "x", []byte("x")); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Set into a shared directory: %v, want ErrPermission", err)
	}
}
