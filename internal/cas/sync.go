package cas

import "fmt"

// Sync flushes every blob written since the last Sync to the disk: one
// syncfs(2) of the file system that holds the store. It does nothing when
// nothing was written. Safe for concurrent use with Put: a Put that
// finishes during a Sync marks the store dirty again for the next one.
func (s *Store) Sync() error {
	if !s.dirty.Swap(false) {
		return nil
	}
	if err := syncFS(s.dir); err != nil {
		s.dirty.Store(true)
		return fmt.Errorf("cas: syncing %s: %w", s.dir, err)
	}
	return nil
}
