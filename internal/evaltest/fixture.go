package evaltest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// Fixture creates files under dir: each name maps to its content, and a
// name ending in "/" is a directory. Missing parents are created.
func Fixture(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Code is err's language error code: "" for no error, "go:" and the
// message for an error that is not a language error.
func Code(err error) string {
	if err == nil {
		return ""
	}
	var ve *value.Error
	if errors.As(err, &ve) {
		return ve.Code
	}
	return "go:" + err.Error()
}

// Exists reports whether something is at p (not following a final
// symlink).
func Exists(t testing.TB, p string) bool {
	t.Helper()
	_, err := os.Lstat(p)
	return err == nil
}

// ReadFile is the content of the file at p; a failure fails the test.
func ReadFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
