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
// hashes are passed over. A small blob's bytes count as freed when its
// record leaves the pack's index; the file gives them back at the pack's
// next compaction, which a removal starts once half the pack is dead.
func (s *Store) RemoveUnless(hashes []string, keep func(hash string) bool) (removed []string, bytes int64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range hashes {
		hx, perr := ParseHash(h)
		if perr != nil {
			continue
		}
		p := s.path(hx)
		inPack := s.small.has(sumOf(hx))
		fi, serr := os.Stat(p)
		isFile := serr == nil && fi.Mode().IsRegular()
		if !inPack && !isFile || keep(h) {
			continue
		}
		if inPack {
			n, rerr := s.small.remove(sumOf(hx))
			bytes += n
			if rerr != nil {
				return removed, bytes, rerr
			}
			if !isFile {
				removed = append(removed, h)
				continue
			}
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
	if err := s.small.maybeCompact(s.dir); err != nil {
		return removed, bytes, err
	}
	return removed, bytes, nil
}
