package cas

import (
	"fmt"

	"github.com/shoalgo/shoal/internal/blake3"
)

// PutUnless is Put for a caller that keeps its own set of blobs it knows
// are stored: the store hashes data once, asks known about the hash, and
// stores nothing when known reports true (stored is then false). The
// caller never hands the store a hash to trust: the one known is asked
// about, and the one returned, are the store's own hash of data, so a
// caller's known-set skip and the blob's address cannot disagree. known
// is called without the store's lock held.
func (s *Store) PutUnless(data []byte, known func(h string) bool) (h string, stored bool, err error) {
	if len(data) > MaxBlobBytes {
		return "", false, fmt.Errorf("%w: %d bytes (max %d)", ErrTooLarge, len(data), MaxBlobBytes)
	}
	sum := blake3.Sum256(data)
	h = name(sum)
	if known != nil && known(h) {
		return h, false, nil
	}
	if err := s.putSum(sum, h, data); err != nil {
		return "", false, err
	}
	return h, true, nil
}
