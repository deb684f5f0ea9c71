package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: the file gets exactly the data and the permissions, replaces
// an older one, and no temporary file stays behind.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for _, data := range []string{"first\n", "second, longer than the first\n", ""} {
		if err := Write(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
		st, _ := os.Stat(p)
		if st.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", st.Mode().Perm())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want the file alone", len(ents))
	}
}

// TestWriteFails: a path whose directory is missing, or which is a
// directory, fails with the cause wrapped and leaves nothing behind.
func TestWriteFails(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "no", "f"), []byte("x"), 0o600); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing directory: %v, want ErrNotExist", err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(sub, "keep"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Write(sub, []byte("x"), 0o600); err == nil {
		t.Error("replacing a non-empty directory succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a failed write left %d entries, want 1", len(ents))
	}
}
