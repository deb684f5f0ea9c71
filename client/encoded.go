package client

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/shoalgo/shoal/proto"
)

// Encoded is params its caller has already encoded as compact JSON (one
// value, no whitespace between tokens), as json.Marshal writes a value:
// Call puts them in the request frame as they are (issue 24, the
// thirteenth round). The MCP facade writes an exec's params so
// (internal/mcp/execparams.go); proto.EncodeFrame would compact them again
// through encoding/json's reflection, a few microseconds on each of the
// facade's calls. Any other params type, the Go client's own calls
// included, is framed by proto.EncodeFrame as before.
//
// The frame is the bytes proto.EncodeFrame writes for the request when
// the params are compact (TestEncodedFrameMatches); params holding a
// newline (which compact JSON never does) or an empty params, a method
// name that encoding/json would escape, and a frame over proto.MaxFrame
// are left to proto.EncodeFrame, which compacts, or refuses, as before.
type Encoded []byte

// requestFrame is the request frame for id, method and params: by
// encodedFrame when params is Encoded and that applies, else by
// proto.EncodeFrame.
func requestFrame(id uint64, method string, params json.RawMessage, enc bool) ([]byte, error) {
	if enc {
		if frame, ok := encodedFrame(id, method, params); ok {
			return frame, nil
		}
	}
	return proto.EncodeFrame(request{JSONRPC: proto.Version, ID: id, Method: method, Params: params})
}

// encodedFrame writes the request frame around compact params; ok is
// false when it does not apply (see Encoded).
func encodedFrame(id uint64, method string, params []byte) ([]byte, bool) {
	if len(params) == 0 || !plainMethod(method) || bytes.IndexByte(params, '\n') >= 0 {
		return nil, false
	}
	b := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"method":"","params":}`)+20+len(method)+len(params)+1)
	b = append(b, `{"jsonrpc":"`...)
	b = append(b, proto.Version...)
	b = append(b, `","id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":`...)
	b = append(b, params...)
	b = append(b, "}\n"...)
	if len(b)-1 > proto.MaxFrame {
		return nil, false
	}
	return b, true
}

// plainMethod reports whether encoding/json writes method as its bytes
// between quotes (printable ASCII, no quote or backslash; HTML characters
// are not escaped by proto.EncodeFrame's encoder).
func plainMethod(method string) bool {
	for i := 0; i < len(method); i++ {
		if c := method[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
