package mcp

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/shoalgo/shoal/proto"
)

// scanned is what scanFrame learns of one frame in a single pass: whether
// it is exactly one JSON value, how deeply it nests, what kind of value it
// is, and, when it is an object, where its envelope members are.
type scanned struct {
	valid bool // exactly one JSON value, surrounded by whitespace at most
	depth int  // the deepest nesting of arrays and objects
	first byte // the value's first byte: '{', '[', '"', a digit…
	// members are the raw values of the top-level members named by
	// scanFrame's names argument, in that order, nil when absent; they
	// alias the frame.
	members [][]byte
	dup     bool // one of those members appears twice
	// escapedName: one of those members' names is written with an
	// escape (the name matched once decoded).
	escapedName bool
}

// The JSON-RPC envelope members a frame's screening reads, as indexes
// into envNames and scanned.members.
const (
	envJSONRPC = iota
	envID
	envMethod
	envParams
	envResult
	envError
)

var envNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// The members of an error object that the SDK decodes with a type.
const (
	errCode = iota
	errMessage
)

var errNames = []string{"code", "message"}

// maxKeyBytes is the longest raw key (quotes included) that is decoded to
// see whether it is one of the names looked for: "jsonrpc" written
// entirely in \u escapes is 44 bytes; a longer key cannot be one.
const maxKeyBytes = 64

// nameIndex returns which of names the raw key is, or -1.
func nameIndex(raw []byte, names []string) int {
	if len(raw) > maxKeyBytes {
		return -1
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		var key string
		if json.Unmarshal(raw, &key) != nil {
			return -1
		}
		return slices.Index(names, key)
	}
	// Compared as bytes: no string is made for a key without escapes,
	// every member of every frame the gate reads (issue 24).
	for i, n := range names {
		if string(body) == n {
			return i
		}
	}
	return -1
}

// scanFrame checks b in one iterative pass (proto.ScanFrame, which keeps
// one bit per open container rather than recursing, so that no nesting,
// however deep, costs more than a bit of memory per level) and notes where
// the top-level members called names are. Like json.Valid it does not
// insist that strings be valid UTF-8.
func scanFrame(b []byte, names []string) scanned {
	f := proto.ScanFrame(b)
	sc := scanned{valid: f.Valid, depth: f.Depth, first: f.First, members: make([][]byte, len(names))}
	for key, val := range f.Members() {
		if n := nameIndex(key, names); n >= 0 {
			if sc.members[n] != nil {
				sc.dup = true
			}
			if bytes.IndexByte(key, '\\') >= 0 {
				sc.escapedName = true
			}
			sc.members[n] = val
		}
	}
	return sc
}
