package mcp

import "encoding/json"

// scanned is what scanFrame learns of one frame in a single pass: whether
// it is exactly one JSON value, how deeply it nests, what kind of value it
// is, and, when it is an object, where its envelope members are.
type scanned struct {
	valid bool // exactly one JSON value, surrounded by whitespace at most
	depth int  // the deepest nesting of arrays and objects
	first byte // the value's first byte: '{', '[', '"', a digit…
	// members are where the top-level members named by scanFrame's
	// names argument are, in that order.
	members []span
	dup     bool // one of those members appears twice
}

// span locates a top-level member's value in the frame; end 0 means the
// member is absent.
type span struct{ start, end int }

func (s span) present() bool { return s.end > 0 }

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
	key := string(raw[1 : len(raw)-1])
	for _, c := range raw {
		if c == '\\' {
			if json.Unmarshal(raw, &key) != nil {
				return -1
			}
			break
		}
	}
	for i, n := range names {
		if key == n {
			return i
		}
	}
	return -1
}

// scanFrame checks b in one iterative pass, keeping one bit per open
// container rather than recursing, so that no nesting, however deep, costs
// more than a bit of memory per level; it notes where the top-level
// members called names are. Like json.Valid it does not insist that
// strings be valid UTF-8.
func scanFrame(b []byte, names []string) scanned {
	const (
		needValue        = iota // a value must come next
		needValueOrClose        // just after '[': a value or ']'
		needKeyOrClose          // just after '{': a key or '}'
		needKey                 // after ',' in an object
		needCommaOrClose        // after a value
	)
	var (
		sc      = scanned{members: make([]span, len(names))}
		objects []uint64 // bit n set: open container n is an object
		open    int      // containers open
		state   = needValue
		i       int
		member  = -1 // the envelope member whose value is being scanned
		mStart  int
	)
	isObject := func() bool { return objects[(open-1)/64]&(1<<((open-1)%64)) != 0 }
	push := func(obj bool) {
		if open/64 == len(objects) {
			objects = append(objects, 0)
		}
		if obj {
			objects[open/64] |= 1 << (open % 64)
		} else {
			objects[open/64] &^= 1 << (open % 64)
		}
		open++
		sc.depth = max(sc.depth, open)
	}
	// valueEnded notes the end of a value that ended at i: a top-level
	// member's is recorded.
	valueEnded := func() {
		if open == 1 && member >= 0 {
			if sc.members[member].present() {
				sc.dup = true
			}
			sc.members[member] = span{mStart, i}
			member = -1
		}
		state = needCommaOrClose
	}
	i = skipSpace(b, 0)
	if i < len(b) {
		sc.first = b[i]
	}
	for {
		i = skipSpace(b, i)
		if state == needCommaOrClose && open == 0 {
			sc.valid = i == len(b)
			return sc
		}
		if i >= len(b) {
			return sc
		}
		c := b[i]
		switch state {
		case needValue, needValueOrClose:
			switch {
			case c == ']' && state == needValueOrClose:
				i++
				open--
				valueEnded()
				continue
			case c == '{':
				push(true)
				i++
				state = needKeyOrClose
				continue
			case c == '[':
				push(false)
				i++
				state = needValueOrClose
				continue
			case c == '"':
				i = skipString(b, i)
			case c == 't':
				i = skipWord(b, i, "true")
			case c == 'f':
				i = skipWord(b, i, "false")
			case c == 'n':
				i = skipWord(b, i, "null")
			default:
				i = skipNumber(b, i)
			}
			if i < 0 {
				return sc
			}
			valueEnded()
		case needKeyOrClose, needKey:
			if c == '}' && state == needKeyOrClose {
				i++
				open--
				valueEnded()
				continue
			}
			if c != '"' {
				return sc
			}
			k := i
			if i = skipString(b, i); i < 0 {
				return sc
			}
			if open == 1 {
				member = nameIndex(b[k:i], names)
			}
			if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
				return sc
			}
			i = skipSpace(b, i+1)
			if open == 1 {
				mStart = i
			}
			state = needValue
		case needCommaOrClose:
			obj := isObject()
			switch {
			case c == ',' && obj:
				state = needKey
			case c == ',':
				state = needValue
			case c == '}' && obj, c == ']' && !obj:
				i++
				open--
				valueEnded()
				continue
			default:
				return sc
			}
			i++
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i],
// or -1 when it is malformed.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

// skipWord returns the index just past the literal w at b[i], or -1.
func skipWord(b []byte, i int, w string) int {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return -1
	}
	return i + len(w)
}

// skipNumber returns the index just past the number at b[i], or -1.
func skipNumber(b []byte, i int) int {
	digits := func(j int) int {
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}
