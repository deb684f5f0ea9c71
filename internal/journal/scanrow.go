package journal

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// scannedInt is an integer column as database/sql hands it to an *any:
// the driver's int64, or text (a database edited by hand) that
// strconv.ParseInt reads, as Scan into an integer accepted it.
func scannedInt(v any) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case string:
		return strconv.ParseInt(v, 10, 64)
	case []byte:
		return strconv.ParseInt(string(v), 10, 64)
	}
	return 0, fmt.Errorf("journal: an integer column holds %T", v)
}

// rawChunkMax bounds the size of a rawArena's chunk, unless one row's
// texts alone are larger.
const rawChunkMax = 64 << 10

// rawArena holds the AST and effects JSON of a page's rows, copied out of
// their packed texts into a few shared chunks rather than two allocations
// a row. Each slice it hands out is clipped, so an append to one copies
// rather than reaching its neighbour's bytes. A chunk is sized for the
// rows still expected at the size of the row that starts it (left), at
// most rawChunkMax or that row's texts, so a page of like rows takes one
// chunk and the slack is at most one chunk.
type rawArena struct {
	buf  []byte
	left int // rows still to read, the current one included
	// keep leaves the AST and effects as the row's text, uncopied
	// (Query.Stored): the arena holds nothing.
	keep bool
}

// reserve makes room for n bytes in the current chunk.
func (a *rawArena) reserve(n int) {
	if n <= cap(a.buf)-len(a.buf) {
		return
	}
	size := n
	if a.left > 1 {
		size = min(n*a.left, max(rawChunkMax, n))
	}
	a.buf = make([]byte, 0, size)
}

// copy returns s as a JSON value of its own bytes.
func (a *rawArena) copy(s string) json.RawMessage {
	if a == nil {
		return json.RawMessage(s)
	}
	a.reserve(len(s))
	start := len(a.buf)
	a.buf = append(a.buf, s...)
	return a.buf[start:len(a.buf):len(a.buf)]
}
