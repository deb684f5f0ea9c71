package format

import (
	"slices"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
)

// layout produces the canonical layout of text, whose tree is prog.
//
// The tree says which bytes are tokens (the spans of its leaves, strings
// with their holes, interpreter bodies) and which are comments; the bytes
// outside both are code punctuation and spaces. Brackets among those give
// each line's depth: the lines above with a bracket still open, so that
// `f([` opens one level, not two. A line that starts inside a token (a multi-line
// string or interpreter body) is kept as it is; every other line has its
// leading spaces replaced by the depth's indentation.
//
// With spaced, the gaps within each line are made canonical too
// (spacing.go); without, they are kept as written but for the one space
// before a trailing comment.
func layout(text string, prog *syntax.Program, spaced bool) string {
	opaque, flags := treeFacts(prog, text)
	var b strings.Builder
	b.Grow(len(text) + len(text)/8)
	st := lineState{flags: flags, spaced: spaced}
	oi := 0 // the first opaque span that may hold or follow the line
	for start := 0; start <= len(text); {
		end := len(text)
		if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
			end = start + i
		}
		for oi < len(opaque) && int(opaque[oi].End) <= start {
			oi++
		}
		st.line(&b, text, start, end, opaque[oi:])
		start = end + 1
	}
	return b.String()
}

// treeFacts returns what the layout needs from the tree: sorted and
// merged, the spans of prog's tokens that have content (leaves, strings
// with holes, interpreter bodies) and of its comments; and a flag byte per
// source byte (fCmd, fRecOpen, fRecClose, fType; see spacing.go). The walk
// asks each node for its children once, which both tells a leaf and gives
// what to visit next; parents come before children, so a command's
// expression parts clear the command flag the command set.
func treeFacts(prog *syntax.Program, text string) ([]syntax.Span, []uint8) {
	flags := make([]uint8, len(text)+1)
	spans := make([]syntax.Span, 0, len(prog.Comments)+len(text)/8) // about one token in eight bytes
	stack := make([]syntax.Node, 0, 64)
	for i := len(prog.Stmts) - 1; i >= 0; i-- {
		stack = append(stack, prog.Stmts[i])
	}
	var kids []syntax.Node
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if isLeaf(n) {
			spans = append(spans, n.Pos())
			continue
		}
		switch n := n.(type) {
		case *syntax.StrInterp:
			spans = append(spans, n.Pos()) // a string's holes lie inside it
			continue
		case *syntax.CmdCall:
			paint(flags, n.Span, fCmd, true)
			if n.Trailing != nil {
				paint(flags, n.Trailing.Span, fCmd, false)
			}
		case *syntax.CmdArg:
			if n.Kind == syntax.ArgExpr {
				sp := n.Span
				if int(sp.Start) < len(text) && text[sp.Start] == '(' {
					sp.Start++
					sp.End--
				}
				paint(flags, sp, fCmd, false)
			}
		case *syntax.Record:
			markBraces(flags, text, n.Span)
		case *syntax.RecordPat:
			markBraces(flags, text, n.Span)
		case *syntax.TypeExpr:
			paint(flags, n.Span, fType, true)
		}
		kids, _ = syntax.AppendChildren(kids[:0], n)
		if len(kids) == 0 {
			if !isContainer(n) {
				spans = append(spans, n.Pos())
			}
			continue
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	for _, c := range prog.Comments {
		spans = append(spans, c.Span)
	}
	sortSpans(spans)
	return mergeSpans(spans), flags
}

// sortSpans sorts spans by start; the walk gives them nearly sorted
// (comments come last), so a sort that is fast on runs is used.
func sortSpans(spans []syntax.Span) {
	slices.SortStableFunc(spans, func(a, b syntax.Span) int { return int(a.Start) - int(b.Start) })
}

// mergeSpans merges overlapping spans (sorted by start) in place and
// drops empty ones.
func mergeSpans(spans []syntax.Span) []syntax.Span {
	merged := spans[:0]
	for _, s := range spans {
		if s.End <= s.Start {
			continue
		}
		if n := len(merged); n > 0 && s.Start < merged[n-1].End {
			merged[n-1].End = max(merged[n-1].End, s.End)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// paint sets (or clears) flag over the bytes of sp.
func paint(flags []uint8, sp syntax.Span, flag uint8, set bool) {
	lo, hi := max(int(sp.Start), 0), min(int(sp.End), len(flags))
	for i := lo; i < hi; i++ {
		if set {
			flags[i] |= flag
		} else {
			flags[i] &^= flag
		}
	}
}

// markBraces flags the braces of a record (pattern) spanning sp.
func markBraces(flags []uint8, text string, sp syntax.Span) {
	if s := int(sp.Start); s < len(text) && text[s] == '{' {
		flags[s] |= fRecOpen
	}
	if e := int(sp.End) - 1; e >= 0 && e < len(text) && text[e] == '}' {
		flags[e] |= fRecClose
	}
}

// isLeaf reports the token kinds, which have no children: known without
// asking the walker, which is most of the nodes of a tree.
func isLeaf(n syntax.Node) bool {
	switch n.(type) {
	case *syntax.Var, *syntax.IntLit, *syntax.StrLit, *syntax.FloatLit, *syntax.BoolLit,
		*syntax.NullLit, *syntax.SizeLit, *syntax.DurationLit, *syntax.TimeLit,
		*syntax.DateTimeLit, *syntax.PathLit, *syntax.RegexLit, *syntax.LangBlock:
		return true
	}
	return false
}

// isContainer reports the nodes that are not tokens even when empty:
// brackets with nothing inside (syntax.IsToken's list).
func isContainer(n syntax.Node) bool {
	switch n.(type) {
	case *syntax.Block, *syntax.List, *syntax.Record, *syntax.ListPat, *syntax.RecordPat:
		return true
	}
	return false
}

// lineState carries what one line tells the next.
type lineState struct {
	flags       []uint8 // treeFacts' flag per source byte
	spaced      bool    // canonical gaps within lines
	open        []bool  // the brackets open before the line: whether each began a level
	levels      int     // indentation levels open: lines with an open bracket
	continues   bool    // the line continues the statement of the line above
	blank       bool    // blank lines were seen since the last line written
	wrote       bool    // a line has been written
	afterOpener bool    // the last line written ends with an opening bracket
}

// line lays out the line text[start:end] (without its line break), given
// the opaque spans from the first that ends after start.
func (st *lineState) line(b *strings.Builder, text string, start, end int, opaque []syntax.Span) {
	startInside := len(opaque) > 0 && int(opaque[0].Start) < start
	endInside := false
	keep := start // trailing spaces before keep are a token's (`A\ `): kept
	for _, o := range opaque {
		if int(o.Start) >= end {
			break
		}
		endInside = int(o.End) > end
		if text[o.Start] != '#' {
			keep = max(keep, min(int(o.End), end))
		}
	}
	cut := end // the line without its trailing spaces
	if !endInside {
		for cut > keep && (text[cut-1] == ' ' || text[cut-1] == '\t' || text[cut-1] == '\r') {
			cut--
		}
	}
	line := text[start:cut]
	if startInside {
		// Inside a multi-line token: kept, but for trailing spaces when the
		// token ends on this line.
		st.flushBlank(b, false)
		if st.spaced {
			writeCanonical(b, text, start, start+len(line), opaque, st.flags)
		} else {
			b.WriteString(line)
		}
		b.WriteByte('\n')
		st.scan(text, start, end, opaque)
		return
	}
	content := strings.TrimLeft(line, " \t")
	if content == "" {
		st.blank = st.blank || st.wrote
		return
	}
	lead := start + (len(line) - len(strings.TrimLeft(line, " \t")))
	closers := st.closedLevels(leadingClosers(text, lead, cut, opaque))
	indent := st.levels - closers
	if st.continues {
		indent++
	}
	st.flushBlank(b, closers > 0 || startsWithCloser(text, lead))
	for range max(indent, 0) {
		b.WriteString(indentUnit)
	}
	if st.spaced {
		writeCanonical(b, text, lead, lead+len(content), opaque, st.flags)
	} else {
		writeSpacedComment(b, text, lead, lead+len(content), opaque)
	}
	b.WriteByte('\n')
	st.scan(text, start, end, opaque)
}

// closedLevels returns how many indentation levels the first k open
// brackets from the top close.
func (st *lineState) closedLevels(k int) int {
	n := 0
	for i := len(st.open) - 1; i >= 0 && k > 0; i, k = i-1, k-1 {
		if st.open[i] {
			n++
		}
	}
	return n
}

// flushBlank writes the one blank line that stands for a run of them,
// unless the file has nothing yet, the last line opened a bracket or this
// one starts by closing one.
func (st *lineState) flushBlank(b *strings.Builder, closes bool) {
	if st.blank && st.wrote && !st.afterOpener && !closes {
		b.WriteByte('\n')
	}
	st.blank, st.wrote = false, true
}

// scan moves the state past the line text[start:end]: brackets change the
// depth, and the line's last code (outside tokens and comments) says
// whether the next line continues it.
func (st *lineState) scan(text string, start, end int, opaque []syntax.Span) {
	var last byte
	lastAt := -1
	oi := 0
	openHere := 0 // brackets opened on this line and still open
	for i := start; i < end; i++ {
		for oi < len(opaque) && int(opaque[oi].End) <= i {
			oi++
		}
		if oi < len(opaque) && int(opaque[oi].Start) <= i {
			if text[opaque[oi].Start] != '#' { // a token, not a comment
				last, lastAt = 'a', int(opaque[oi].End)-1
			}
			i = int(opaque[oi].End) - 1 // skip it
			continue
		}
		c := text[i]
		switch c {
		case '{', '[', '(':
			st.open = append(st.open, openHere == 0)
			if openHere == 0 {
				st.levels++
			}
			openHere++
		case '}', ']', ')':
			if n := len(st.open); n > 0 {
				if st.open[n-1] {
					st.levels--
				}
				st.open = st.open[:n-1]
			}
			openHere = max(openHere-1, 0)
		case ' ', '\t', '\r':
			continue
		}
		last, lastAt = c, i
	}
	st.afterOpener = last == '{' || last == '[' || last == '('
	st.continues = lastAt >= 0 && continuesAfter(text, lastAt) || startsWithDot(text, end+1, opaque)
}

// continuesAfter reports whether a line whose last code byte is text[i]
// leaves its statement open: a line continuation `\` or a binary operator.
func continuesAfter(text string, i int) bool {
	switch text[i] {
	case '\\', '=', '+', '-', '*', '/', '%', '&', '|', '<', '>', '?', ':', '!':
		return !(text[i] == '>' && i > 0 && text[i-1] == '-') // `->` ends a return type
	}
	return false
}

// startsWithDot reports whether the line at pos starts with `.` or `?.`
// outside a token: a method chain continued from the line above.
func startsWithDot(text string, pos int, opaque []syntax.Span) bool {
	for pos < len(text) && (text[pos] == ' ' || text[pos] == '\t') {
		pos++
	}
	if pos >= len(text) {
		return false
	}
	if text[pos] == '?' {
		pos++
	}
	if pos >= len(text) || text[pos] != '.' {
		return false
	}
	for _, o := range opaque {
		if int(o.Start) > pos {
			break
		}
		if pos < int(o.End) {
			return false
		}
	}
	return true
}

// leadingClosers counts the closing brackets at the start of the line's
// code (from lead), before anything else.
func leadingClosers(text string, lead, end int, opaque []syntax.Span) int {
	n := 0
	for i := lead; i < end; i++ {
		switch text[i] {
		case '}', ']', ')':
			for _, o := range opaque {
				if int(o.Start) > i {
					break
				}
				if i < int(o.End) {
					return n
				}
			}
			n++
		case ' ', '\t':
		default:
			return n
		}
	}
	return n
}

// writeSpacedComment writes text[from:to], with the spaces between code
// and a comment that follows it on the line made one.
func writeSpacedComment(b *strings.Builder, text string, from, to int, opaque []syntax.Span) {
	for _, o := range opaque {
		s := int(o.Start)
		if s >= to {
			break
		}
		if s <= from || text[s] != '#' { // no token starts with `#`

			continue
		}
		gap := s
		for gap > from && (text[gap-1] == ' ' || text[gap-1] == '\t') {
			gap--
		}
		if gap == s || gap == from {
			continue
		}
		b.WriteString(text[from:gap])
		b.WriteByte(' ')
		b.WriteString(text[s:to])
		return
	}
	b.WriteString(text[from:to])
}

// startsWithCloser reports whether the code at lead is a closing bracket.
func startsWithCloser(text string, lead int) bool {
	return lead < len(text) && (text[lead] == '}' || text[lead] == ']' || text[lead] == ')')
}
