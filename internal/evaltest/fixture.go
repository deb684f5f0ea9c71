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
