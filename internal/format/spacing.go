package format

import (
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
)

// The canonical spacing within a line. A line's code is read as a row of
// items: the tree's tokens and comments (opaque, written as they are),
// and between them, in the bytes the tree does not cover, names and
// keywords, operators and brackets. The gap before each item is then made
// what gapWant says: none, one space, or kept (a run of spaces and tabs
// becomes one space, no space stays none). Command words are all kept:
// there a space separates words and its absence joins them.

// Byte flags from the tree (treeFacts), one per source byte.
const (
	fCmd      uint8 = 1 << iota // inside a command call, outside its expression parts
	fRecOpen                    // the `{` that opens a record or record pattern
	fRecClose                   // the `}` that closes one
	fType                       // inside a type annotation (`list<int>`)
)

// item kinds.
const (
	kWord    = iota // a name
	kKeyword        // a reserved word
	kTok            // a token of the tree (literal, name, string, body)
	kComment        // a `#` comment
	kOp             // operator or bracket: the text says which
)

type item struct {
	kind       int
	start, end int
	prefix     bool // an operator that applies to what follows (`-x`, `!x`, `...xs`)
}

// gap wants.
const (
	gapKeep = iota
	gapNone
	gapSpace
)

// operators lists the operators read as one item, longest first where one
// is the prefix of another.
var operators = [...]string{
	"...", "..=", "..", "??", "?.", "=>", "->", "==", "!=", "<=", ">=", "&&", "||",
	"+=", "-=", "*=", "/=", "::",
}

// opStarts are the first bytes of the operators.
const opStarts = ".?=-!<>&|+*/:"

// spaced reports the operators written with one space on each side
// (binary `-` too, which gapWant tells from the prefix one).
func spaced(op string) bool {
	switch op {
	case "=>", "->", "==", "!=", "<=", ">=", "&&", "||", "??", "+=", "-=", "*=", "/=",
		"=", "+", "*", "/", "%", "<", ">", "|":
		return true
	}
	return false
}

// writeCanonical writes the code text[from:to] of one line (no leading
// spaces unless from is inside a token, no trailing ones unless a token
// runs past the line) with the canonical gaps. opaque are the tree's token
// and comment spans from the first that ends after from.
func writeCanonical(b *strings.Builder, text string, from, to int, opaque []syntax.Span, flags []uint8) {
	var prev item
	havePrev := false
	oi := 0
	for pos := from; pos < to; {
		for oi < len(opaque) && int(opaque[oi].End) <= pos {
			oi++
		}
		ws := pos
		if oi >= len(opaque) || int(opaque[oi].Start) > pos { // not inside a token
			for pos < to && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\r') {
				pos++
			}
		}
		if pos >= to {
			break
		}
		for oi < len(opaque) && int(opaque[oi].End) <= pos {
			oi++
		}
		var it item
		switch {
		case oi < len(opaque) && int(opaque[oi].Start) <= pos:
			it = item{kind: kTok, start: pos, end: min(int(opaque[oi].End), to)}
			if text[pos] == '#' {
				it.kind = kComment
			}
		default:
			it = lexItem(text, pos, to)
			if it.kind == kKeyword && havePrev && prev.kind == kOp && (text[prev.start:prev.end] == "." || text[prev.start:prev.end] == "?.") {
				it.kind = kWord // a field or method named like a keyword
			}
		}
		if it.kind == kOp {
			switch text[it.start:it.end] {
			case "!", "...":
				it.prefix = true
			case "-":
				it.prefix = !havePrev || !endsOperand(text, prev)
			}
		}
		if havePrev {
			switch gapWant(text, flags, prev, it) {
			case gapSpace:
				b.WriteByte(' ')
			case gapKeep:
				if ws < pos {
					b.WriteByte(' ')
				}
			}
		}
		b.WriteString(text[it.start:it.end])
		prev, havePrev = it, true
		pos = it.end
	}
}

// lexItem reads the item at pos outside the tree's tokens: a name or
// keyword, a quoted key (`{"a b": 1}`: keys are no nodes), an operator,
// or any other single byte.
func lexItem(text string, pos, to int) item {
	c := text[pos]
	if c == '"' || c == '\'' {
		e := pos + 1
		for e < to && text[e] != c {
			if c == '"' && text[e] == '\\' {
				e++
			}
			e++
		}
		return item{kind: kTok, start: pos, end: min(e+1, to)}
	}
	if isNameByte(c) {
		e := pos + 1
		for e < to && isNameByte(text[e]) {
			e++
		}
		if syntax.IsKeyword(text[pos:e]) {
			return item{kind: kKeyword, start: pos, end: e}
		}
		return item{kind: kWord, start: pos, end: e}
	}
	if strings.IndexByte(opStarts, c) >= 0 {
		for _, op := range operators {
			if strings.HasPrefix(text[pos:to], op) {
				return item{kind: kOp, start: pos, end: pos + len(op)}
			}
		}
	}
	return item{kind: kOp, start: pos, end: pos + 1}
}

// isNameByte reports the bytes of names (any non-ASCII byte is taken as
// part of one: names may be written in any script).
func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// gapWant decides the gap between items p and c on one line.
func gapWant(text string, flags []uint8, p, c item) int {
	if c.kind == kComment {
		return gapSpace
	}
	if flags[c.start]&fCmd != 0 && flags[p.end-1]&fCmd != 0 {
		return gapKeep // between command words: spacing is meaning
	}
	ps, cs := "", ""
	if p.kind == kOp {
		ps = text[p.start:p.end]
	}
	if c.kind == kOp {
		cs = text[c.start:c.end]
	}
	switch {
	case cs == "," || cs == ";" || cs == ")" || cs == "]":
		return gapNone
	case ps == "(" || ps == "[":
		return gapNone
	case ps == "," || ps == ";":
		return gapSpace
	case ps == "{" && cs == "}":
		return gapNone
	case ps == "{":
		if flags[p.start]&fRecOpen != 0 {
			return gapNone
		}
		return gapSpace
	case cs == "}":
		if flags[c.start]&fRecClose != 0 {
			return gapNone
		}
		return gapSpace
	case cs == ":":
		return gapNone
	case ps == ":":
		return gapSpace
	case flags[c.start]&fType != 0 && (cs == "<" || cs == ">" || cs == "?"):
		return gapNone
	case flags[p.start]&fType != 0 && ps == "<":
		return gapNone
	case cs == "." || cs == "?." || ps == "." || ps == "?." || cs == "?" || ps == "?" || ps == "...":
		return gapKeep // `x.f` and `x .f`, `x?` may differ
	case cs == ".." || cs == "..=":
		if endsOperand(text, p) {
			return gapNone
		}
		return gapKeep
	case ps == ".." || ps == "..=":
		return gapNone
	case p.prefix:
		return gapKeep // a prefix operator's operand (`-1` is a literal)
	case cs == "-":
		if c.prefix && !spaced(ps) && p.kind != kKeyword {
			return gapKeep
		}
		return gapSpace
	case ps == "-" || spaced(cs) || spaced(ps):
		return gapSpace
	case cs == "{":
		return gapSpace
	case p.kind == kKeyword:
		return gapSpace // `if (`, `in [`; a name after `.` is a kWord
	case c.kind == kKeyword:
		return gapSpace // `} else`, `) catch`, `x in xs`
	}
	return gapKeep
}

// endsOperand reports whether item p can end an operand, so that a `-`
// after it is binary: a token, a name, a closing bracket.
func endsOperand(text string, p item) bool {
	switch p.kind {
	case kTok, kWord:
		return true
	case kOp:
		s := text[p.start:p.end]
		return s == ")" || s == "]" || s == "}"
	}
	return false
}
