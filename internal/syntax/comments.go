package syntax

import (
	"slices"
	"strings"
)

// Comments as trivia. The lexer skips `#` comments; when ParseOptions asks
// for them, a pass after parsing visits each `#` byte of the source and
// asks the tree where it lies: inside a token (a string, a regex, an
// interpreter body, a word: the innermost node holding it has no
// children) it is text, anywhere else it starts a comment, which runs to
// the end of its line. Each comment is attached to a node. The pass costs
// a descent of the tree per `#`, nothing per node, and the tree itself is
// not touched, so everything that reads it is unaffected.

// CommentPlace says where a comment sits relative to the node it is
// attached to.
type CommentPlace uint8

// Comment places.
const (
	// CommentLeading: on a line of its own before Node.
	CommentLeading CommentPlace = iota + 1
	// CommentTrailing: after Node, on the line Node ends on.
	CommentTrailing
	// CommentDangling: with no node after it in the innermost node holding
	// it (Node, a block for instance), or at the end of the program (Node
	// nil).
	CommentDangling
)

// String names the place.
func (p CommentPlace) String() string {
	switch p {
	case CommentLeading:
		return "leading"
	case CommentTrailing:
		return "trailing"
	case CommentDangling:
		return "dangling"
	}
	return "unknown"
}

// Comment is one `#` comment of a source.
type Comment struct {
	// Text runs from the `#` to the end of the line, without the line
	// break (a `\r` before it is not part of the text).
	Text  string
	Span  Span
	Place CommentPlace
	// Node is the node the comment is attached to; nil for a comment
	// dangling at the end of the program.
	Node Node
}

// attachComments fills prog.Comments from src.
func attachComments(src string, prog *Program) {
	var d descent
	for pos := 0; pos < len(src); {
		i := strings.IndexByte(src[pos:], '#')
		if i < 0 {
			return
		}
		p := pos + i
		if n := d.innermost(prog, int32(p)); n != nil && IsToken(n) {
			pos = int(n.Pos().End) // text inside a token: go on after it
			continue
		}
		end := lineEnd(src, p)
		pos = end
		if end > p && src[end-1] == '\r' {
			end--
		}
		c := Comment{Text: src[p:end], Span: mkSpan(p, end)}
		d.place(src, prog, &c)
		prog.Comments = append(prog.Comments, c)
	}
}

// descent finds the nodes of a tree that hold an offset, reusing its
// buffers from one question to the next.
type descent struct {
	path []Node // the nodes holding the offset, outermost first
	kids []Node
}

// isOpaque reports whether n's whole span is one token as far as comments
// go, children or not: a string with interpolation holes.
func isOpaque(n Node) bool {
	_, ok := n.(*StrInterp)
	return ok
}

// IsToken reports whether n's span is the text of one token, where a `#`
// or a line break is content and not trivia: a node without children
// (a literal, a name, a word, an interpreter block) other than an empty
// bracket (a block, list, record or pattern), or a string with
// interpolation holes.
func IsToken(n Node) bool {
	switch n.(type) {
	case *StrInterp, *StrLit, *Var, *IntLit, *FloatLit, *BoolLit, *NullLit, *SizeLit,
		*DurationLit, *TimeLit, *DateTimeLit, *PathLit, *RegexLit, *LangBlock:
		return true
	case *Program, *Block, *List, *Record, *ListPat, *RecordPat:
		return false
	}
	var buf [4]Node
	kids, _ := AppendChildren(buf[:0], n)
	return len(kids) == 0
}

// walkTo fills d.path with the nodes of prog whose spans hold pos,
// outermost first. Children are in source order, so each level is a binary
// search (statements searched in place, not copied); the descent is
// bounded by MaxDepth and stops at an opaque node.
func (d *descent) walkTo(prog *Program, pos int32) {
	d.path = d.path[:0]
	var n Node = prog
	for depth := 0; depth <= MaxDepth && !isOpaque(n); depth++ {
		var k Node
		switch b := n.(type) {
		case *Program:
			k = holding(b.Stmts, pos)
		case *Block:
			k = holding(b.Stmts, pos)
		default:
			d.kids, _ = AppendChildren(d.kids[:0], n)
			k = holding(d.kids, pos)
		}
		if k == nil {
			return
		}
		d.path = append(d.path, k)
		n = k
	}
}

// holding returns the last of nodes (in source order) that starts at or
// before pos, when its span holds pos; else nil.
func holding[N Node](nodes []N, pos int32) Node {
	i, _ := slices.BinarySearchFunc(nodes, pos, func(k N, p int32) int {
		if k.Pos().Start <= p {
			return -1
		}
		return 1
	})
	if i == 0 {
		return nil
	}
	k := nodes[i-1]
	if sp := k.Pos(); sp.Start <= pos && pos < sp.End {
		return k
	}
	return nil
}

// innermost returns the deepest node of prog whose span holds pos, or nil
// when only the program does.
func (d *descent) innermost(prog *Program, pos int32) Node {
	d.walkTo(prog, pos)
	if len(d.path) == 0 {
		return nil
	}
	return d.path[len(d.path)-1]
}

// place decides c's place and node.
func (d *descent) place(src string, prog *Program, c *Comment) {
	holder := d.innermost(prog, c.Span.Start)
	// Code before the comment on its line: trailing the node ending there.
	b := int(c.Span.Start)
	for b > 0 && (src[b-1] == ' ' || src[b-1] == '\t') {
		b--
	}
	if b > 0 && src[b-1] != '\n' {
		e := b
		if src[e-1] == ',' || src[e-1] == ';' { // `1, # one` trails the 1
			e--
			for e > 0 && (src[e-1] == ' ' || src[e-1] == '\t') {
				e--
			}
		}
		if n := d.outermost(prog, int32(e-1), func(sp Span) bool { return sp.End == int32(e) }); n != nil {
			c.Place, c.Node = CommentTrailing, n
			return
		}
		c.Place, c.Node = CommentDangling, holder
		return
	}
	// On a line of its own: leading the node that starts next, when that
	// node is inside the same innermost node.
	next := nextCode(src, int(c.Span.End))
	if holder == nil || int32(next) < holder.Pos().End {
		if n := d.outermost(prog, int32(next), func(sp Span) bool { return sp.Start == int32(next) }); n != nil {
			c.Place, c.Node = CommentLeading, n
			return
		}
	}
	c.Place, c.Node = CommentDangling, holder
}

// outermost returns the outermost node of prog holding pos whose span is
// as wanted, or nil.
func (d *descent) outermost(prog *Program, pos int32, want func(Span) bool) Node {
	if pos < 0 {
		return nil
	}
	d.walkTo(prog, pos)
	for _, n := range d.path {
		if want(n.Pos()) {
			return n
		}
	}
	return nil
}

// nextCode returns the offset of the first byte at or after pos that is
// not a space, a line break or part of a comment.
func nextCode(src string, pos int) int {
	for pos < len(src) {
		switch src[pos] {
		case ' ', '\t', '\r', '\n':
			pos++
		case '#':
			for pos < len(src) && src[pos] != '\n' {
				pos++
			}
		default:
			return pos
		}
	}
	return pos
}

// lineEnd returns the offset of the line break at or after pos, or the
// length of src when there is none.
func lineEnd(src string, pos int) int {
	if i := strings.IndexByte(src[pos:], '\n'); i >= 0 {
		return pos + i
	}
	return len(src)
}
