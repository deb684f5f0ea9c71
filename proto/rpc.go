package proto

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Version is the JSON-RPC version string every envelope carries.
const Version = "2.0"

// Request is a JSON-RPC 2.0 request or notification. ID holds the id
// member verbatim: nil when the member is absent (a notification), the
// four bytes `null` when the client sent null.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// OwnParams gives the request its own copy of Params, which
// DecodeRequestInFrame leaves aliasing the frame.
func (r *Request) OwnParams() {
	if r.Params != nil {
		r.Params = append(json.RawMessage(nil), r.Params...)
	}
}

// IsNotification reports whether the request carries no id, so nothing is
// sent back.
func (r *Request) IsNotification() bool { return r.ID == nil }

// RPCError is the error member of a response. It implements error.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return "rpc error " + strconv.Itoa(e.Code) + ": " + e.Message
}

// NewError returns an RPCError with the given code, message and data.
func NewError(code int, msg string, data any) *RPCError {
	return &RPCError{Code: code, Message: msg, Data: data}
}

// Response is a JSON-RPC 2.0 response. Exactly one of Result and Error is
// encoded: Error when non-nil, otherwise Result (null when nil). A nil ID
// encodes as null.
//
// Result is any so that servers encode results in one pass; a client
// decoding a Response can preset Result to a *json.RawMessage to capture
// it raw.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// NewResponse builds a success response.
func NewResponse(id json.RawMessage, result any) *Response {
	return &Response{JSONRPC: Version, ID: id, Result: result}
}

// NewErrorResponse builds an error response; a nil id becomes null, as
// JSON-RPC requires when the request's id is unknown.
func NewErrorResponse(id json.RawMessage, err *RPCError) *Response {
	return &Response{JSONRPC: Version, ID: id, Error: err}
}

// MarshalJSON encodes the response with exactly one of result and error.
func (r *Response) MarshalJSON() ([]byte, error) {
	id := r.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	v := r.JSONRPC
	if v == "" {
		v = Version
	}
	if r.Error != nil {
		return marshalNoHTML(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *RPCError       `json:"error"`
		}{v, id, r.Error})
	}
	return marshalNoHTML(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{v, id, r.Result})
}

// marshalNoHTML is json.Marshal without escaping <, > and &.
func marshalNoHTML(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Notification is a server-to-client message without an id, such as an
// event.
type Notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// NewNotification builds a notification.
func NewNotification(method string, params any) *Notification {
	return &Notification{JSONRPC: Version, Method: method, Params: params}
}

// Event is the params of an "event" notification, and an event of
// events.read's answer.
type Event struct {
	Channel string `json:"channel"`
	Seq     uint64 `json:"seq"`
	TS      int64  `json:"ts"` // Unix nanoseconds
	Payload any    `json:"payload"`
}

// DecodeRequest parses one frame as a JSON-RPC 2.0 request.
//
// Malformed JSON yields CodeRPCParseError and a nil request: the caller
// replies with id null and closes the connection. Valid JSON that is not a
// request object (not an object, nested deeper than MaxFrameDepth,
// jsonrpc other than "2.0", method missing or not a string, params
// neither object nor array, duplicated envelope member) yields
// CodeInvalidRequest; the returned request then still carries the id when
// one was present, for the reply, and the connection stays open. Member names are case-sensitive; unknown members are
// ignored. The request does not alias frame.
func DecodeRequest(frame []byte) (*Request, *RPCError) {
	req, err := DecodeRequestInFrame(frame)
	if req != nil {
		req.OwnParams()
	}
	return req, err
}

// DecodeRequestInFrame is DecodeRequest for a reader that handles the
// request before it reads the next frame into the same buffer: Params
// aliases frame (a parse request's params are ~all of it, and copying
// them costs more than decoding the envelope). Call OwnParams before the
// request outlives frame's bytes.
func DecodeRequestInFrame(frame []byte) (*Request, *RPCError) {
	var top topMembers
	depth, valid := scanJSONTop(frame, &top)
	if !valid {
		return nil, NewError(CodeRPCParseError, "parse error: malformed JSON", nil)
	}
	i := skipWS(frame, 0)
	if frame[i] != '{' {
		return &Request{}, NewError(CodeInvalidRequest, "invalid request: not a JSON object", nil)
	}
	var (
		ver, id, method, params []byte
		seen                    uint8
		dup                     bool
	)
	// The scan found the members; a frame with more than it holds is
	// walked again.
	it := newMembers(frame, i)
	for k := 0; ; k++ {
		var qkey, val []byte
		var esc bool
		if top.over {
			var ok bool
			if qkey, esc, val, ok = it.next(); !ok {
				break
			}
		} else {
			if k == top.n {
				break
			}
			m := top.m[k]
			qkey, val = frame[m.key[0]:m.key[1]], frame[m.val[0]:m.val[1]]
			esc = bytes.IndexByte(qkey, '\\') >= 0
		}
		rawKey := qkey[1 : len(qkey)-1]
		var key string
		if esc {
			key, _ = jsonString(qkey)
		}
		var bit uint8
		var dst *[]byte
		switch {
		case esc && key == "jsonrpc", !esc && string(rawKey) == "jsonrpc":
			bit, dst = 1, &ver
		case esc && key == "id", !esc && string(rawKey) == "id":
			bit, dst = 2, &id
		case esc && key == "method", !esc && string(rawKey) == "method":
			bit, dst = 4, &method
		case esc && key == "params", !esc && string(rawKey) == "params":
			bit, dst = 8, &params
		default:
			continue
		}
		if seen&bit != 0 {
			dup = true
		}
		seen |= bit
		*dst = val
	}
	req := &Request{}
	if id != nil {
		req.ID = json.RawMessage(append([]byte(nil), id...))
	}
	switch {
	case depth > MaxFrameDepth:
		if id != nil && (id[0] == '{' || id[0] == '[') {
			req.ID = nil // it may be what is too deep; answer with id null
		}
		return req, NewError(CodeInvalidRequest, "invalid request: nested deeper than "+strconv.Itoa(MaxFrameDepth)+" levels", nil)
	case dup:
		return req, NewError(CodeInvalidRequest, "invalid request: duplicated member", nil)
	case ver == nil:
		return req, NewError(CodeInvalidRequest, `invalid request: missing "jsonrpc"`, nil)
	}
	if s, ok := jsonString(ver); !ok || s != Version {
		return req, NewError(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`, nil)
	}
	req.JSONRPC = Version
	if method == nil {
		return req, NewError(CodeInvalidRequest, `invalid request: missing "method"`, nil)
	}
	m, ok := jsonString(method)
	if !ok {
		return req, NewError(CodeInvalidRequest, `invalid request: "method" must be a string`, nil)
	}
	req.Method = m
	if params != nil {
		switch params[0] {
		case '{', '[':
			req.Params = json.RawMessage(params)
		case 'n': // null: same as absent
		default:
			return req, NewError(CodeInvalidRequest, `invalid request: "params" must be an object or array`, nil)
		}
	}
	return req, nil
}
