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

// rawChunk is the size of a rawArena's chunks.
const rawChunk = 16 << 10

// rawArena holds the AST and effects JSON of a page's rows, copied out of
// their packed texts into a few shared chunks rather than two allocations
// a row. Each slice it hands out is clipped, so an append to one copies
// rather than reaching its neighbour's bytes. A chunk is as large as
// rawChunk or the one text that does not fit, so a page's arena is at
// most its texts plus one chunk's slack each time a chunk is started.
type rawArena struct{ buf []byte }

// copy returns s as a JSON value of its own bytes.
func (a *rawArena) copy(s string) json.RawMessage {
	if a == nil {
		return json.RawMessage(s)
	}
	if len(s) > cap(a.buf)-len(a.buf) {
		a.buf = make([]byte, 0, max(len(s), rawChunk))
	}
	start := len(a.buf)
	a.buf = append(a.buf, s...)
	return a.buf[start:len(a.buf):len(a.buf)]
}
