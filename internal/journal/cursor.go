package journal

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
)

// A cursor is opaque to callers: "j1" then base64url (no padding) of a
// version byte and the uvarint id of the last entry of the page. The next
// page holds entries with smaller ids.
const cursorPrefix = "j1"

func encodeCursor(lastID int64) string {
	b := make([]byte, 1, 1+binary.MaxVarintLen64)
	b[0] = 1
	b = binary.AppendUvarint(b, uint64(lastID))
	return cursorPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor returns the id a cursor stands for; any malformed cursor is
// ErrBadQuery.
func decodeCursor(c string) (int64, error) {
	if len(c) > MaxCursorBytes || len(c) < len(cursorPrefix) || c[:len(cursorPrefix)] != cursorPrefix {
		return 0, fmt.Errorf("%w: malformed cursor", ErrBadQuery)
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(c[len(cursorPrefix):])
	if err != nil || len(b) < 2 || b[0] != 1 {
		return 0, fmt.Errorf("%w: malformed cursor", ErrBadQuery)
	}
	v, n := binary.Uvarint(b[1:])
	if n <= 0 || n != len(b)-1 || v == 0 || v > 1<<62 {
		return 0, fmt.Errorf("%w: malformed cursor", ErrBadQuery)
	}
	if encodeCursor(int64(v)) != c {
		return 0, fmt.Errorf("%w: malformed cursor", ErrBadQuery) // one position, one cursor
	}
	return int64(v), nil
}
