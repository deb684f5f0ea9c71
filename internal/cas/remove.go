package cas

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// RemoveUnless removes each blob of hashes for which keep returns false,
// and returns the hashes it removed and their bytes. Like Sweep it holds
// every Put off while it runs (so a blob being written is never judged
// half-way), but it touches only the blobs named: a caller that knows
// which blobs may have lost their last reference (the kernel, after a
// prune) frees them without walking the store. Malformed and absent
// hashes are passed over.
func (s *Store) RemoveUnless(hashes []string, keep func(hash string) bool) (removed []string, bytes int64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range hashes {
		hx, perr := ParseHash(h)
		if perr != nil {
			continue
		}
		p := s.path(hx)
		fi, serr := os.Stat(p)
		if serr != nil || !fi.Mode().IsRegular() || keep(h) {
			continue
		}
		if rerr := os.Remove(p); rerr != nil {
			if errors.Is(rerr, fs.ErrNotExist) {
				continue
			}
			return removed, bytes, fmt.Errorf("cas: removing %s: %w", h, rerr)
		}
		removed = append(removed, h)
		bytes += fi.Size()
	}
	return removed, bytes, nil
}
