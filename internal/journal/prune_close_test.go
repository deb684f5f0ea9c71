package journal

import (
	"path/filepath"
	"testing"
)

// TestPruneDuringClose: a Prune running while the journal closes fails or
// finishes; it never waits for the write lock while holding the applier's,
// which Close takes in the other order (a deadlock the test would hang on).
func TestPruneDuringClose(t *testing.T) {
	for range 20 {
		d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
		if err != nil {
			t.Fatal(err)
		}
		closeDuring(t, d, "a prune", func(i int) error {
			_, err := d.Prune(int64(i))
			return err
		})
	}
}
