package namespaces

import (
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

// The data namespaces share the value core's JSON-compatible projection:
// nil, bool, int64, float64, string, []any and *value.JSONObject (ordered).
// value.ToJSON decides how every kind looks as data, and value.FromJSON
// turns decoded data back into values (arrays of like-keyed objects become
// tables), so json, yaml and toml agree on both directions. Decoders may
// also put ready-made values (value.Float, value.DateTime) in the tree.

// maxDepth bounds nesting when walking decoded documents so hostile input
// cannot exhaust the stack; it is the value core's bound, since a deeper
// document could not become a value anyway.
const maxDepth = value.MaxDepth

// toData projects v for an encoder.
func toData(v value.Value) (any, error) {
	return value.ToJSON(v)
}

// fromData converts a decoded tree to a value.
func fromData(d any) (value.Value, error) {
	return value.FromJSON(d)
}

// floatText spells a finite float so TOML and YAML read it back as a
// float: the value core's JSON spelling, with ".0" added when integral.
func floatText(f float64) string {
	s := jsonScalar(value.Float(f))
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// jsonScalar is the JSON text of a scalar, in the value core's spelling.
func jsonScalar(v value.Value) string {
	b, err := value.JSONText(v, false)
	if err != nil {
		return value.Inline(v)
	}
	return string(b)
}
