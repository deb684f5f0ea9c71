package complete

import (
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Complete returns the completion candidates for the cursor position in
// src, best first, at most MaxCandidates. cursor is a UTF-8 byte offset,
// clamped to [0, len(src)] and moved back to the start of a rune it falls
// inside. Inside a string or comment there are none.
func Complete(src string, cursor int, ctx Context) []Candidate {
	cursor = clampCursor(src, cursor)
	st := scan(src, cursor)
	if !st.code {
		return nil
	}
	c := &completer{src: src, cur: cursor, ctx: &ctx, stmt: st.stmt}
	return c.run()
}

func clampCursor(src string, cursor int) int {
	if cursor < 0 {
		return 0
	}
	if cursor > len(src) {
		return len(src)
	}
	for cursor > 0 && cursor < len(src) && !utf8.RuneStart(src[cursor]) {
		cursor--
	}
	return cursor
}

type completer struct {
	src  string
	cur  int
	ctx  *Context
	stmt int
	out  []scored
}

func (c *completer) run() []Candidate {
	identStart := c.cur
	for identStart > c.stmt && isIdentByte(c.src[identStart-1]) {
		identStart--
	}
	wordStart := c.cur
	for wordStart > c.stmt && isWordByte(c.src[wordStart-1]) {
		wordStart--
	}
	segStart := c.stmt
	for segStart < c.cur && isSpace(c.src[segStart]) {
		segStart++
	}
	head := wordStart <= segStart
	word := c.src[wordStart:c.cur]

	if !head && c.isCommand(segStart) {
		// A command argument: a path, unless it continues a value such as
		// `(cmd).out` or `"s".len`.
		if wordStart > 0 && strings.HasPrefix(word, ".") && strings.ContainsRune(")]}\"'", rune(c.src[wordStart-1])) &&
			identStart == wordStart+1 {
			return c.methodsAt(identStart)
		}
		if strings.HasPrefix(word, "-") {
			return c.flags(segStart, wordStart, word)
		}
		if subs := c.subcommands(segStart, wordStart, word); len(subs) > 0 {
			return subs
		}
		return c.paths(wordStart, word)
	}
	if head && pathShaped(word) {
		return c.paths(wordStart, word)
	}
	if identStart > 0 && c.src[identStart-1] == '.' {
		return c.methodsAt(identStart)
	}
	if identStart < c.cur && !isIdentStartByte(c.src[identStart]) {
		return nil // inside a number literal
	}
	return c.names(identStart, head && identStart == wordStart)
}

// isCommand reports whether the segment starting at seg is a command call:
// its first word is `^name`, a path, or a name that is not a keyword, a
// namespace or a bound value.
func (c *completer) isCommand(seg int) bool {
	end := seg
	for end < c.cur && isWordByte(c.src[end]) {
		end++
	}
	if end >= c.cur || end == seg {
		return false
	}
	first := c.src[seg:end]
	if first[0] == '^' || pathShaped(first) {
		return true
	}
	for i := 0; i < len(first); i++ {
		if !isIdentByte(first[i]) {
			return false
		}
	}
	if !isIdentStartByte(first[0]) || isKeyword(first) || c.ctx.isNamespace(first) || c.ctx.isBound(first) {
		return false
	}
	return isSpace(c.src[end])
}

func isIdentStartByte(b byte) bool { return isIdentByte(b) && (b < '0' || b > '9') }

func pathShaped(w string) bool {
	return w == "~" || w == "." || w == ".." || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") ||
		strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~/")
}

// wordEnd extends a replacement span over the rest of the word after the
// cursor.
func (c *completer) wordEnd(in func(byte) bool) int {
	end := c.cur
	for end < len(c.src) && in(c.src[end]) {
		end++
	}
	return end
}

// names offers everything a statement head or expression may name; at a
// statement's head (head), the programs on PATH too.
func (c *completer) names(start int, head bool) []Candidate {
	prefix := c.src[start:c.cur]
	span := syntax.Span{Start: int32(start), End: int32(c.wordEnd(isIdentByte))}
	ctx := c.ctx
	for _, n := range call(ctx.Names) {
		d := ""
		if ctx.KindOf != nil {
			if k, ok := ctx.KindOf(n); ok {
				d = k.String()
			}
		}
		c.add(n, KindVariable, d, span, prefix)
	}
	for _, n := range call(ctx.Commands) {
		c.add(n, KindFunction, "command", span, prefix)
	}
	for _, n := range call(ctx.Builtins) {
		c.add(n, KindBuiltin, "builtin", span, prefix)
	}
	for _, n := range ctx.namespaces() {
		c.add(n, KindNamespace, "namespace", span, prefix)
	}
	if head {
		for _, n := range call(ctx.PathCommands) {
			c.add(n, KindCommand, "command", span, prefix)
		}
	}
	for _, n := range keywords {
		c.add(n, KindKeyword, "keyword", span, prefix)
	}
	return c.result()
}

// flags offers the flags the command at seg declares, for the word at
// start (which begins with `-`).
func (c *completer) flags(seg, start int, word string) []Candidate {
	if c.ctx.Flags == nil {
		return nil
	}
	end := seg
	for end < c.cur && isWordByte(c.src[end]) {
		end++
	}
	head := strings.TrimPrefix(c.src[seg:end], "^")
	span := syntax.Span{Start: int32(start), End: int32(c.wordEnd(isWordByte))}
	for _, f := range c.ctx.Flags(head) {
		if strings.HasPrefix(f, word) {
			c.add(f, KindFlag, head+" flag", span, word)
		}
	}
	return c.result()
}

// subcommands offers the subcommands an adapted command at seg declares
// when the word at start is its first argument; none otherwise.
func (c *completer) subcommands(seg, start int, word string) []Candidate {
	if c.ctx.Subcommands == nil || pathShaped(word) {
		return nil
	}
	end := seg
	for end < c.cur && isWordByte(c.src[end]) {
		end++
	}
	if strings.TrimSpace(c.src[end:start]) != "" {
		return nil // not the first argument
	}
	head := strings.TrimPrefix(c.src[seg:end], "^")
	span := syntax.Span{Start: int32(start), End: int32(c.wordEnd(isWordByte))}
	for _, s := range c.ctx.Subcommands(head) {
		if strings.HasPrefix(s, word) {
			c.add(s, KindCommand, head+" subcommand", span, word)
		}
	}
	return c.result()
}

// methodsAt offers what may follow the `.` just before start.
func (c *completer) methodsAt(start int) []Candidate {
	prefix := c.src[start:c.cur]
	span := syntax.Span{Start: int32(start), End: int32(c.wordEnd(isIdentByte))}
	dot := start - 1
	recvEnd := dot
	if recvEnd > 0 && c.src[recvEnd-1] == '?' {
		recvEnd--
	}
	if recvEnd > 0 && c.src[recvEnd-1] == '.' {
		return nil // a range `a..b`
	}
	r := c.receiver(recvEnd)
	switch {
	case r.ns != "":
		names, kinds := c.ctx.members(r.ns)
		for _, n := range names {
			k := kinds[n]
			if k == "" {
				k = KindFunction
			}
			c.add(n, k, r.ns, span, prefix)
		}
	case r.env:
		for _, n := range call(c.ctx.EnvNames) {
			c.add(n, KindVariable, "env", span, prefix)
		}
	case r.known:
		if r.name != "" && r.kind == value.KRecord && c.ctx.Fields != nil {
			for _, f := range c.ctx.Fields(r.name) {
				c.add(f, KindField, "field", span, prefix)
			}
		}
		for _, m := range c.ctx.methods(r.kind) {
			c.add(m, KindMethod, r.kind.String()+" method", span, prefix)
		}
	default:
		for _, m := range c.ctx.allMethods() {
			c.add(m, KindMethod, "method", span, prefix)
		}
	}
	return c.result()
}
