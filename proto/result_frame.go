package proto

import (
	"bytes"
	"encoding/json"
)

// A result frame is a success response built in place by a server whose
// result is large (an AST), so that the result is written once, straight
// into the frame, rather than built, re-validated and copied by
// encoding/json:
//
//	b := proto.AppendResultHead(buf, id)
//	b = append(b, …result JSON…)
//	b = proto.AppendResultTail(b)
//
// The frame is byte for byte what EncodeFrame writes for
// NewResponse(id, result) when the result JSON is compact.

// AppendResultHead appends the start of a success response for a request
// with id (nil or empty for id null) up to its result:
// {"jsonrpc":"2.0","id":ID,"result":
// The id is written compacted, as EncodeFrame writes it.
func AppendResultHead(dst []byte, id json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	switch {
	case len(id) == 0:
		dst = append(dst, "null"...)
	case !bytes.ContainsAny(id, " \t\r\n"):
		dst = append(dst, id...) // already compact
	default:
		var b bytes.Buffer
		if err := json.Compact(&b, id); err != nil {
			dst = append(dst, "null"...) // DecodeRequest never returns such an id
		} else {
			dst = append(dst, b.Bytes()...)
		}
	}
	return append(dst, `,"result":`...)
}

// ResultTailLen is the number of bytes AppendResultTail adds; a result
// written after AppendResultHead may bring the frame to at most
// MaxFrame+1-ResultTailLen bytes.
const ResultTailLen = 2

// AppendResultTail ends a frame begun with AppendResultHead: the response
// object and the newline.
func AppendResultTail(dst []byte) []byte { return append(dst, "}\n"...) }
