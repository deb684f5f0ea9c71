package mcp

import (
	"bytes"
	"sync/atomic"
	"unicode/utf8"

	"github.com/shoalgo/shoal/proto"
)

// shoal_exec's arguments without reflection (issue 24, the eleventh
// round). toolExec decoded its arguments (the schema's output: the
// caller's, defaults applied, written again by json.Marshal or srcOnly)
// with json.Unmarshal, by reflection, ~2.5% of the facade's CPU a call.
// What it almost always gets is an object of src, mode, position,
// background and perhaps timeout_ms; decodeExecArgs reads that one shape
// in one scan and declines anything else, which json.Unmarshal then
// decodes (and words the errors of) as before. FuzzExecArgs holds the
// two to the same answer whenever the fast one does not decline.

// maxExecArgsDigits is the most digits of timeout_ms decodeExecArgs reads
// itself: any such integer fits an int64.
const maxExecArgsDigits = 15

// decodeExecArgs is json.Unmarshal(data, &a) for data that is a JSON
// object whose members are among src, mode, position (strings),
// background (true or false) and timeout_ms (an integer of plain digits),
// under those exact names, each at most once; ok is false for anything
// else (another member, a name in another case or written with an
// escape, a repeated member, null, a negative, fractional or very long
// number, elide, invalid JSON).
func decodeExecArgs(data []byte) (a execArgs, ok bool) {
	if genericExecArgs.Load() {
		return a, false
	}
	f := proto.ScanFrame(data)
	if !f.Valid || f.First != '{' {
		return a, false
	}
	var seen [5]bool
	for key, val := range f.Members() {
		var k int
		switch string(key) {
		case `"src"`:
			k = 0
		case `"mode"`:
			k = 1
		case `"position"`:
			k = 2
		case `"background"`:
			k = 3
		case `"timeout_ms"`:
			k = 4
		default:
			return execArgs{}, false
		}
		if seen[k] {
			return execArgs{}, false
		}
		seen[k] = true
		switch k {
		case 0, 1, 2:
			s, ok := jsonString(data, key, val)
			if !ok {
				return execArgs{}, false
			}
			switch k {
			case 0:
				a.Src = s
			case 1:
				a.Mode = s
			default:
				a.Position = s
			}
		case 3:
			switch string(val) {
			case "true":
				a.Background = true
			case "false":
				a.Background = false
			default:
				return execArgs{}, false
			}
		case 4:
			if len(val) == 0 || len(val) > maxExecArgsDigits || (len(val) > 1 && val[0] == '0') {
				return execArgs{}, false
			}
			var n int64
			for _, c := range val {
				if c < '0' || c > '9' {
					return execArgs{}, false
				}
				n = n*10 + int64(c-'0')
			}
			a.TimeoutMS = n
		}
	}
	return a, true
}

// jsonString is the string member key (quoted, as written) of the object
// data has, whose value is val, as encoding/json decodes it; ok is false
// when val is not a string. A string without escapes is copied as it is
// (invalid UTF-8 declined: encoding/json would replace it); one with
// escapes is decoded by proto.StringParam, encoding/json's equal, which
// reads the object's only member of that name (decodeExecArgs has made
// sure there is one, and no other a case-insensitive match could take).
func jsonString(data, key, val []byte) (string, bool) {
	if len(val) < 2 || val[0] != '"' {
		return "", false
	}
	body := val[1 : len(val)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		if !utf8.Valid(body) {
			return "", false
		}
		return string(body), true
	}
	return proto.StringParam(data, string(key[1:len(key)-1]))
}

// genericExecArgs turns decodeExecArgs off (tests compare the answers of
// the two decoders end to end).
var genericExecArgs atomic.Bool
