package cas

import (
	"fmt"
	"os"
	"path/filepath"
)

// Usage walks the store and reports how many blobs it holds and their
// bytes together (stray temporaries included: they take disk too; the
// small-blob pack counts its live blobs and its whole file, dead records
// included).
// It reads every subdirectory, so it is for a caller off the hot path (the
// kernel's retention pass), not for every Put.
func (s *Store) Usage() (files int64, bytes int64, err error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	files, bytes = s.small.usage()
	subs, err := os.ReadDir(s.dir)
	if err != nil {
		return 0, 0, fmt.Errorf("cas: usage: %w", err)
	}
	for _, sub := range subs {
		if !sub.IsDir() || len(sub.Name()) != fanOut {
			continue
		}
		ents, err := os.ReadDir(filepath.Join(s.dir, sub.Name()))
		if err != nil {
			return files, bytes, fmt.Errorf("cas: usage: %w", err)
		}
		for _, e := range ents {
			info, err := e.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			files++
			bytes += info.Size()
		}
	}
	return files, bytes, nil
}
