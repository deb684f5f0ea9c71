package cas

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/shoalgo/shoal/internal/blake3"
)

// Load returns the whole of blob h, verified, in one read: for a caller
// that needs all of it (a content ref resolved in the language), where a
// loop of Gets would re-hash the blob once per MaxGetBytes. A blob longer
// than max is ErrTooLarge and none of it is read; one that does not match
// its name is ErrCorrupt.
func (s *Store) Load(h string, max int64) ([]byte, error) {
	hx, err := ParseHash(h)
	if err != nil {
		return nil, err
	}
	data, inPack, perr := s.small.get(sumOf(hx))
	if inPack && perr == nil {
		if int64(len(data)) > max {
			return nil, fmt.Errorf("%w: %s is %d bytes (max %d)", ErrTooLarge, h, len(data), max)
		}
		return data, nil
	}
	f, err := os.Open(s.path(hx))
	if err != nil {
		if perr != nil {
			return nil, perr // in the pack, corrupt, and no file
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, h)
		}
		return nil, fmt.Errorf("cas: opening %s: %w", h, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cas: stat %s: %w", h, err)
	}
	total := fi.Size()
	if total > max {
		return nil, fmt.Errorf("%w: %s is %d bytes (max %d)", ErrTooLarge, h, total, max)
	}
	data = make([]byte, total)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, h, err)
	}
	if n, _ := f.Read(make([]byte, 1)); n != 0 {
		return nil, fmt.Errorf("%w: %s grew while read", ErrCorrupt, h)
	}
	sum := blake3.Sum256(data)
	if hex.EncodeToString(sum[:]) != hx {
		return nil, fmt.Errorf("%w: %s", ErrCorrupt, h)
	}
	return data, nil
}
