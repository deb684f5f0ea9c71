package mcp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shoalgo/shoal/proto"
)

// srcOnly answers toolInput without decoding for the call most clients
// make most often, arguments {"src": s} alone (shoal_exec, shoal_plan):
// the defaulted arguments are then the same bytes around s whatever s
// is, so they are worked out once per tool (head and tail) and s is
// encoded between them as json.Marshal encodes it. What it saves per
// call is decoding into a map, applying defaults, validating and
// encoding the map again (issue 24: ~6% of the facade's CPU per
// shoal_exec). TestToolInputMatchesSDK holds the answers equal.
type srcOnly struct {
	head, tail []byte
}

// srcSchemaKeys are the members a schema (the tool's, or its src
// property's) may have for every string src to give the same defaulted
// arguments and pass validation: no constraint on the string, nothing
// at the root that could depend on it.
var (
	srcRootKeys = map[string]bool{"type": true, "additionalProperties": true, "required": true, "properties": true, "description": true, "title": true}
	srcPropKeys = map[string]bool{"type": true, "description": true, "title": true}
)

// newSrcOnly returns the tool's srcOnly, or nil when its schema could
// treat two src strings differently.
func newSrcOnly(resolved *jsonschema.Resolved) *srcOnly {
	b, err := json.Marshal(resolved.Schema())
	if err != nil {
		return nil
	}
	var root map[string]json.RawMessage
	if json.Unmarshal(b, &root) != nil || !onlyKeys(root, srcRootKeys) || string(root["type"]) != `"object"` {
		return nil
	}
	var props map[string]json.RawMessage
	if json.Unmarshal(root["properties"], &props) != nil {
		return nil
	}
	var src map[string]json.RawMessage
	if json.Unmarshal(props["src"], &src) != nil || !onlyKeys(src, srcPropKeys) || string(src["type"]) != `"string"` {
		return nil
	}
	out, err := toolInput(json.RawMessage(`{"src":""}`), resolved)
	if err != nil {
		return nil
	}
	mark := []byte(`"src":""`)
	i := bytes.Index(out, mark)
	if i < 0 || bytes.Contains(out[i+1:], mark) {
		return nil
	}
	return &srcOnly{head: out[:i+len(`"src":`)], tail: out[i+len(mark):]}
}

func onlyKeys(m map[string]json.RawMessage, allowed map[string]bool) bool {
	for k := range m {
		if !allowed[k] {
			return false
		}
	}
	return true
}

// input returns the defaulted arguments for data when data is {"src": s}
// and nothing else, valid UTF-8 without \u escapes (so that every
// decoder reads the same s); ok is false for any other arguments, which
// go through toolInput. (The gate and the SDK pass only valid JSON; it is
// checked again so that the scan below never meets anything else.)
func (so *srcOnly) input(data json.RawMessage) (json.RawMessage, bool) {
	if so == nil || !utf8.Valid(data) || bytes.Contains(data, []byte(`\u`)) || !json.Valid(data) {
		return nil, false
	}
	s, ok := proto.SoleStringParam(data, "src")
	if !ok {
		return nil, false
	}
	// s encoded as json.Marshal encodes it (appendJSONString, HTML escaped).
	out := make([]byte, 0, len(so.head)+len(s)+16+len(so.tail))
	out = appendJSONString(append(out, so.head...), s, true)
	return append(out, so.tail...), true
}
