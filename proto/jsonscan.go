package proto

// scanJSON reports whether b is exactly one JSON value (RFC 8259, with
// surrounding whitespace) and how deeply its arrays and objects nest. It
// is iterative, keeping one bit per open container, so a frame of any
// depth is checked in one pass without recursion; encoding/json stops at
// 10000 levels and would call deep but valid JSON malformed. Like
// json.Valid it does not check that strings are valid UTF-8.
func scanJSON(b []byte) (depth int, ok bool) { return scanJSONTop(b, nil) }

// topMembers collects, while scanJSON validates an object, where its
// members' keys and values are (indexes into the scanned bytes), so that
// DecodeRequest need not walk a large value a second time to find its
// end. It holds the first maxTopMembers; over reports more.
type topMembers struct {
	n    int
	over bool
	m    [maxTopMembers]struct{ key, val [2]int } // [start, end) each; key with its quotes
}

// maxTopMembers is how many top-level members topMembers holds: a request
// envelope has four.
const maxTopMembers = 8

// add records a member, or notes that there are too many to hold.
func (t *topMembers) add(key [2]int, valStart, valEnd int) {
	if t.n == maxTopMembers {
		t.over = true
		return
	}
	t.m[t.n].key, t.m[t.n].val = key, [2]int{valStart, valEnd}
	t.n++
}

// scanJSONTop is scanJSON that also records the members of a top-level
// object in top, when top is not nil.
func scanJSONTop(b []byte, top *topMembers) (depth int, ok bool) {
	const (
		wantValue        = iota // a value must come next
		wantValueOrClose        // just after '[': a value or ']'
		wantKeyOrClose          // just after '{': a key or '}'
		wantKey                 // after ',' in an object
		afterValue              // ',' or a close, or the end at top level
	)
	var (
		open  []uint64 // bit i set: container i is an object
		n     int      // open containers
		state = wantValue
		i     = 0
		// With top: the key of the top-level member being scanned, and
		// where its value starts (-1: not in one).
		key      [2]int
		valStart = -1
	)
	// closed records the top-level member whose value a container close
	// just ended (n is back to 1, i is past the bracket).
	closed := func() {
		if n == 1 && top != nil && valStart >= 0 {
			top.add(key, valStart, i)
			valStart = -1
		}
	}
	push := func(object bool) {
		if n/64 == len(open) {
			open = append(open, 0)
		}
		if object {
			open[n/64] |= 1 << (n % 64)
		} else {
			open[n/64] &^= 1 << (n % 64)
		}
		n++
		depth = max(depth, n)
	}
	topIsObject := func() bool { return open[(n-1)/64]&(1<<((n-1)%64)) != 0 }
	for {
		i = skipWS(b, i)
		switch state {
		case wantValue, wantValueOrClose:
			if i >= len(b) {
				return depth, false
			}
			if n == 1 && state == wantValue && top != nil && topIsObject() {
				valStart = i
			}
			switch c := b[i]; {
			case c == ']' && state == wantValueOrClose:
				n--
				i++
			case c == '{':
				push(true)
				i++
				state = wantKeyOrClose
				continue
			case c == '[':
				push(false)
				i++
				state = wantValueOrClose
				continue
			case c == '"':
				if i = scanString(b, i); i < 0 {
					return depth, false
				}
			case c == 't':
				if i = scanLiteral(b, i, "true"); i < 0 {
					return depth, false
				}
			case c == 'f':
				if i = scanLiteral(b, i, "false"); i < 0 {
					return depth, false
				}
			case c == 'n':
				if i = scanLiteral(b, i, "null"); i < 0 {
					return depth, false
				}
			default:
				if i = scanNumber(b, i); i < 0 {
					return depth, false
				}
			}
			if n == 1 && top != nil && valStart >= 0 {
				top.add(key, valStart, i)
				valStart = -1
			}
			state = afterValue
		case wantKeyOrClose, wantKey:
			if i >= len(b) {
				return depth, false
			}
			if b[i] == '}' && state == wantKeyOrClose {
				n--
				i++
				closed()
				state = afterValue
				continue
			}
			if b[i] != '"' {
				return depth, false
			}
			keyStart := i
			if i = scanString(b, i); i < 0 {
				return depth, false
			}
			if n == 1 {
				key = [2]int{keyStart, i}
			}
			if i = skipWS(b, i); i >= len(b) || b[i] != ':' {
				return depth, false
			}
			i++
			state = wantValue
		case afterValue:
			if n == 0 {
				return depth, i == len(b)
			}
			if i >= len(b) {
				return depth, false
			}
			obj := topIsObject()
			switch b[i] {
			case ',':
				state = wantValue
				if obj {
					state = wantKey
				}
			case ']':
				if obj {
					return depth, false
				}
				n--
			case '}':
				if !obj {
					return depth, false
				}
				n--
			default:
				return depth, false
			}
			i++
			closed()
		}
	}
}

// scanString returns the index just past the JSON string at b[i] == '"',
// or -1 when it is malformed.
func scanString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		if i = plainEnd(b, i); i == len(b) {
			break
		}
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
					if !isHex(h) {
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

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// scanLiteral returns the index just past lit at b[i], or -1.
func scanLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanNumber returns the index just past the JSON number at b[i], or -1.
func scanNumber(b []byte, i int) int {
	digits := func(i int) int {
		j := i
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
