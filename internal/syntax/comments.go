package syntax

import (
	"slices"
	"strings"
)

// Comments as trivia. The lexer skips `#` comments; when ParseOptions asks
// for them, a pass after parsing finds them with the highlighter's
// tokenizer (the same lexer, in the mode the parser reads each part in),
// drops any the tree shows lie inside a token (a string, a regex, an
// interpreter body, a word), and attaches each to a node. The tree itself
// is not touched, so everything that reads it is unaffected.

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
	if strings.IndexByte(src, '#') < 0 {
		return
	}
	var leaves []Span          // spans of nodes without children: tokens
	starts := map[int32]Node{} // the outermost node starting at an offset
	ends := map[int32]Node{}   // the outermost node ending at an offset
	var kids []Node
	Walk(prog, func(n Node) bool {
		if _, isProg := n.(*Program); isProg {
			return true
		}
		sp := n.Pos()
		if _, ok := starts[sp.Start]; !ok {
			starts[sp.Start] = n
		}
		if _, ok := ends[sp.End]; !ok {
			ends[sp.End] = n
		}
		if isOpaque(n) {
			leaves = append(leaves, sp)
			return false // its parts lie inside its span
		}
		kids, _ = AppendChildren(kids[:0], n)
		if len(kids) == 0 {
			leaves = append(leaves, sp)
		}
		return true
	})
	slices.SortFunc(leaves, func(a, b Span) int { return int(a.Start) - int(b.Start) })
	for _, t := range tokenize(src, nil) {
		if t.Class != ClassComment || insideLeaf(leaves, t.Start) {
			continue
		}
		end := t.End
		if end > t.Start && src[end-1] == '\r' {
			end--
		}
		c := Comment{Text: src[t.Start:end], Span: mkSpan(t.Start, end)}
		placeComment(src, prog, &c, starts, ends)
		prog.Comments = append(prog.Comments, c)
	}
}

// isOpaque reports whether n's whole span is one token as far as comments
// go, children or not: a string with interpolation holes.
func isOpaque(n Node) bool {
	_, ok := n.(*StrInterp)
	return ok
}

// insideLeaf reports whether pos lies inside one of the sorted spans,
// which do not overlap (no leaf holds another).
func insideLeaf(leaves []Span, pos int) bool {
	i, _ := slices.BinarySearchFunc(leaves, int32(pos), func(s Span, p int32) int { return int(s.Start) - int(p) })
	// leaves[i-1] is the last span starting before pos.
	return i > 0 && int32(pos) < leaves[i-1].End
}

// placeComment decides c's place and node.
func placeComment(src string, prog *Program, c *Comment, starts, ends map[int32]Node) {
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
		if n, ok := ends[int32(e)]; ok {
			c.Place, c.Node = CommentTrailing, n
			return
		}
		c.Place, c.Node = CommentDangling, innermost(prog, c.Span.Start)
		return
	}
	// On a line of its own: leading the node that starts next, when that
	// node is inside the same innermost node.
	holder := innermost(prog, c.Span.Start)
	next := nextCode(src, int(c.Span.End))
	if n, ok := starts[int32(next)]; ok && (holder == nil || int32(next) < holder.Pos().End) {
		c.Place, c.Node = CommentLeading, n
		return
	}
	c.Place, c.Node = CommentDangling, holder
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

// innermost returns the deepest node of prog whose span holds pos, or nil
// when only the program does. Children are in source order, so each level
// is a binary search; the descent is bounded by MaxDepth.
func innermost(prog *Program, pos int32) Node {
	var deepest Node
	var kids []Node
	var n Node = prog
	for depth := 0; depth <= MaxDepth; depth++ {
		if isOpaque(n) {
			break
		}
		kids, _ = AppendChildren(kids[:0], n)
		i, _ := slices.BinarySearchFunc(kids, pos, func(k Node, p int32) int {
			if k.Pos().Start <= p {
				return -1
			}
			return 1
		})
		if i == 0 {
			break
		}
		k := kids[i-1]
		if sp := k.Pos(); !(sp.Start <= pos && pos < sp.End) {
			break
		}
		deepest, n = k, k
	}
	return deepest
}
