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
		done := make(chan error, 1)
		started := make(chan struct{})
		go func() {
			for i := 0; ; i++ {
				_, err := d.Prune(int64(i))
				if i == 0 {
					close(started)
				}
				if err != nil {
					done <- err
					return
				}
			}
		}()
		<-started
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err == nil {
			t.Fatal("a prune after Close succeeded")
		}
	}
}
