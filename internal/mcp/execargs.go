package mcp

import (
	"encoding/json"
	"sync/atomic"

	"github.com/shoalgo/shoal/proto"
)

// shoal_exec's arguments without reflection (issue 24, the eleventh
// round). toolExec decoded its arguments (the schema's output: the
// caller's, defaults applied, written again by json.Marshal or srcOnly)
// with json.Unmarshal, by reflection, ~2.5% of the facade's CPU a call.
// What it almost always gets is an object of src, mode, position and
// perhaps timeout_ms; decodeExecArgs reads that one shape with
// proto.FlatParams and declines anything else, which json.Unmarshal then
// decodes (and words the errors of) as before. FuzzExecArgs holds the
// two to the same answer whenever the fast one does not decline.

// decodeExecArgs is json.Unmarshal(data, &a) for data that is a JSON
// object whose members are among src, mode, position (strings) and
// timeout_ms (an integer of plain digits), under those exact names, each
// at most once; ok is false for anything else (another member, a name
// in another case or written with an escape, a repeated member, null, a
// boolean, a negative, fractional or very long number, invalid JSON).
// The strings may share data's memory, which the caller does not change.
func decodeExecArgs(data []byte) (a execArgs, ok bool) {
	if genericExecArgs.Load() || !json.Valid(data) {
		return a, false
	}
	m := [4]proto.FlatParam{{Name: "src"}, {Name: "mode"}, {Name: "position"}, {Name: "timeout_ms", Int: true}}
	if !proto.FlatParams(data, m[:]) {
		return a, false
	}
	return execArgs{Src: m[0].Str, Mode: m[1].Str, Position: m[2].Str, TimeoutMS: m[3].N}, true
}

// genericExecArgs turns decodeExecArgs off (tests compare the answers of
// the two decoders end to end).
var genericExecArgs atomic.Bool
