package complete

// A lexical scan of the source before the cursor: whether the cursor is in
// code, and where the current statement (or expression segment) starts.

type mode uint8

const (
	mCode    mode = iota
	mDQ           // "..."
	mSQ           // '...'
	mTDQ          // """..."""
	mTSQ          // '''...'''
	mComment      // # ... to end of line
)

// frame is one open bracket; stmt is where the current segment inside it
// starts.
type frame struct {
	open byte // 0 for the top level, '(', '[', '{', or 'h' for a string hole
	stmt int
}

// scanState is the lexical state at the cursor.
type scanState struct {
	code bool // the cursor is in code, not in a string or comment
	stmt int  // start of the current segment
}

// scan classifies the cursor position of src[:cursor].
func scan(src string, cursor int) scanState {
	frames := []frame{{open: 0, stmt: 0}}
	top := func() *frame { return &frames[len(frames)-1] }
	m := mCode
	for i := 0; i < cursor; i++ {
		c := src[i]
		switch m {
		case mComment:
			if c == '\n' {
				m = mCode
				top().stmt = i + 1
			}
			continue
		case mDQ:
			switch c {
			case '\\':
				i++
			case '"':
				m = mCode
			case '{':
				frames = append(frames, frame{open: 'h', stmt: i + 1})
				m = mCode
			}
			continue
		case mSQ:
			if c == '\'' {
				m = mCode
			}
			continue
		case mTDQ, mTSQ:
			q := byte('"')
			if m == mTSQ {
				q = '\''
			}
			if c == q && i+2 < len(src) && i+2 < cursor && src[i+1] == q && src[i+2] == q {
				i += 2
				m = mCode
			}
			continue
		}
		switch c {
		case '#':
			if i == 0 || isSpace(src[i-1]) || isOpen(src[i-1]) || src[i-1] == ';' {
				m = mComment
			}
		case '"', '\'':
			if i+2 < len(src) && src[i+1] == c && src[i+2] == c {
				m = mTDQ
				if c == '\'' {
					m = mTSQ
				}
				i += 2
			} else if c == '"' {
				m = mDQ
			} else if i == 0 || !isWordByte(src[i-1]) {
				m = mSQ // an apostrophe inside a word is not a quote
			}
		case '(', '[', '{':
			frames = append(frames, frame{open: c, stmt: i + 1})
		case ')', ']', '}':
			if len(frames) > 1 {
				hole := top().open == 'h'
				frames = frames[:len(frames)-1]
				if hole && c == '}' {
					m = mDQ
				}
			}
		case ';', '|', '&':
			top().stmt = i + 1
		case '\n':
			if o := top().open; o != '(' && o != '[' {
				top().stmt = i + 1
			}
		case ',':
			if top().open != 0 {
				top().stmt = i + 1
			}
		case ':':
			if i+1 < len(src) && isSpace(src[i+1]) {
				top().stmt = i + 1
			}
		case '=':
			switch {
			case i+1 < len(src) && src[i+1] == '>':
				top().stmt = i + 2
				i++
			case i+1 < len(src) && src[i+1] == '=':
				i++
			case i > 0 && isSpace(src[i-1]),
				i > 1 && isSpace(src[i-2]) && (src[i-1] == '+' || src[i-1] == '-' || src[i-1] == '*' || src[i-1] == '/'):
				top().stmt = i + 1
			}
		}
	}
	return scanState{code: m == mCode, stmt: top().stmt}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isOpen(c byte) bool { return c == '(' || c == '[' || c == '{' }

// isIdentByte reports a byte of an identifier (non-ASCII bytes count, so
// identifiers may hold any UTF-8 letters).
func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// isWordByte reports a byte of a command word (paths, flags, globs).
func isWordByte(c byte) bool {
	if isSpace(c) {
		return false
	}
	switch c {
	case ';', '(', ')', '{', '}', '[', ']', ',', '|', '&', '<', '>', '"', '\'', '=':
		return false
	}
	return true
}
