// Package corpusdir locates the shared conformance corpus for the tests
// that read it, and decides what a test does when it is missing: skip on a
// developer's machine, fail under .ci/run (SHOAL_REQUIRE_CORPUS), so no
// corpus test can pass unseen in CI. It imports nothing of Shoal's, so the
// tests of any package (syntax included) can use it.
package corpusdir

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Required reports whether a corpus that is not found must fail the tests
// that read it instead of skipping them: SHOAL_REQUIRE_CORPUS is set, as
// .ci/run sets it.
func Required() bool { return os.Getenv("SHOAL_REQUIRE_CORPUS") != "" }

// Locate finds the shared corpus: $SHOAL_CONFORMANCE_DIR when set, else
// ../shared/conformance beside the module root found by walking up from
// start. isDefault reports whether the shared corpus was chosen.
func Locate(start string) (dir string, isDefault bool, err error) {
	if d := os.Getenv("SHOAL_CONFORMANCE_DIR"); d != "" {
		return d, false, nil
	}
	root, err := moduleRoot(start)
	if err != nil {
		return "", true, err
	}
	return filepath.Join(filepath.Dir(root), "shared", "conformance"), true, nil
}

// ForTest returns the corpus directory for a test running in its
// package's directory. When there is no corpus (no *.toml there) the test
// is skipped, or failed when Required.
func ForTest(tb testing.TB) string {
	tb.Helper()
	dir, _, err := Locate(".")
	if err == nil {
		var files []string
		files, err = filepath.Glob(filepath.Join(dir, "*.toml"))
		if err == nil && len(files) == 0 {
			err = fmt.Errorf("no *.toml files in %s", dir)
		}
	}
	if err != nil {
		if Required() {
			tb.Fatalf("no conformance corpus, and SHOAL_REQUIRE_CORPUS is set: %v", err)
		}
		tb.Skipf("no conformance corpus (set SHOAL_CONFORMANCE_DIR): %v", err)
	}
	return dir
}

// moduleRoot walks up from dir to the directory holding go.mod.
func moduleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("corpusdir: no go.mod above %s", dir)
		}
		dir = parent
	}
}
