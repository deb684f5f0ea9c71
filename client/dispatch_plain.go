package client

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/shoalgo/shoal/proto"
)

// A plain answer without reflection (issue 24, the eleventh round). The
// reader decoded every frame into inbound with json.Unmarshal, by
// reflection, ~4% of the MCP facade's CPU a shoal_exec (an exec's answer
// is read once, copied, and read again by its caller). Most frames are a
// call's answer of exactly jsonrpc, id and result; plainResponse reads
// those from the one scan that checks the frame, and declines anything
// else (an error, a notification, another member, a name in another case
// or with an escape, a repeated member, an id that is not an unsigned
// integer), which dispatch decodes as before. TestPlainResponseMatches
// and FuzzPlainResponse hold the two to the same reading.

// plainResponse reads f, a valid frame, when it is an object of exactly
// the members "jsonrpc" (any value), "id" (an unsigned integer
// strconv.ParseUint reads) and "result", each once; ok is false for any
// other frame. result is a copy (the reader's buffer is reused).
func plainResponse(f *proto.Frame) (id uint64, result json.RawMessage, ok bool) {
	if !f.Valid || f.First != '{' {
		return 0, nil, false
	}
	var rawID, rawResult []byte
	seenJSONRPC := false
	for key, val := range f.Members() {
		switch string(key) {
		case `"jsonrpc"`:
			if seenJSONRPC {
				return 0, nil, false
			}
			seenJSONRPC = true
		case `"id"`:
			if rawID != nil {
				return 0, nil, false
			}
			rawID = val
		case `"result"`:
			if rawResult != nil {
				return 0, nil, false
			}
			rawResult = val
		default:
			return 0, nil, false
		}
	}
	if rawID == nil || rawResult == nil || rawID[0] < '0' || rawID[0] > '9' {
		return 0, nil, false
	}
	id, err := strconv.ParseUint(string(rawID), 10, 64)
	if err != nil {
		return 0, nil, false
	}
	return id, bytes.Clone(rawResult), true
}
