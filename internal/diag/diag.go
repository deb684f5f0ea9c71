// Package diag renders Shoal parse and language errors for people: the
// error code and message, the offending source line with a caret run under
// the span, and the hint.
//
//	error[type_error]: cannot add int and str
//	 --> -c:1:3
//	  |
//	1 | 1 + "a"
//	  |   ^
//	hint: convert one side first
package diag

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Styles are the ANSI escape sequences (select graphic rendition, e.g.
// "\x1b[1;31m") a diagnostic is coloured with on a terminal; an empty one
// leaves its part plain, so the zero Styles is plain text.
type Styles struct {
	// Error colours "error[code]:"; Hint "hint:"; Caret the caret run;
	// Gutter the location arrow, line numbers and bars.
	Error, Hint, Caret, Gutter string
}

// reset ends a style.
const reset = "\x1b[0m"

func paint(style, text string) string {
	if style == "" || text == "" {
		return text
	}
	return style + text + reset
}

// Format renders err, raised while running src, as a multi-line
// diagnostic ending in a newline. name labels the source (a file path,
// "-c", "<stdin>"). Errors that are neither parse nor language errors
// render as "error: ...".
func Format(name, src string, err error) string { return FormatStyled(name, src, err, Styles{}) }

// FormatStyled is Format with the parts coloured by st: the same text,
// escapes added only around the labels, the gutter and the carets.
func FormatStyled(name, src string, err error, st Styles) string {
	var (
		code, msg, hint string
		span            syntax.Span
		hasPos          bool
	)
	var pe *syntax.Error
	var ve *value.Error
	switch {
	case errors.As(err, &pe):
		code, msg, hint, span, hasPos = "parse_error", pe.Msg, pe.Hint, pe.Span, true
	case errors.As(err, &ve):
		code, msg, hint, span, hasPos = ve.Code, ve.Msg, ve.Hint, ve.Span, ve.HasPos
	case err == nil:
		return ""
	default:
		msg = err.Error()
	}

	var b strings.Builder
	label := "error"
	if code != "" {
		label += "[" + code + "]"
	}
	b.WriteString(paint(st.Error, label+":") + " " + msg + "\n")
	if hasPos {
		excerpt(&b, name, src, span, st)
	}
	if hint != "" {
		b.WriteString(paint(st.Hint, "hint:") + " " + hint + "\n")
	}
	return b.String()
}

// excerpt writes the location line, the source line holding the span's
// start and a caret run under the span (clipped to that line, at least one
// caret wide).
func excerpt(b *strings.Builder, name, src string, span syntax.Span, st Styles) {
	start := clamp(int(span.Start), 0, len(src))
	end := clamp(int(span.End), start, len(src))
	lineStart := strings.LastIndexByte(src[:start], '\n') + 1
	lineEnd := len(src)
	if i := strings.IndexByte(src[start:], '\n'); i >= 0 {
		lineEnd = start + i
	}
	if start == len(src) && start > 0 && src[start-1] == '\n' {
		// A span at the very end after a trailing newline points at the
		// last line's end.
		lineEnd = start - 1
		lineStart = strings.LastIndexByte(src[:lineEnd], '\n') + 1
		start, end = lineEnd, lineEnd
	}
	line := strings.TrimSuffix(src[lineStart:lineEnd], "\r")
	lineNo := strings.Count(src[:lineStart], "\n") + 1
	col := utf8.RuneCountInString(src[lineStart:start]) + 1

	num := strconv.Itoa(lineNo)
	pad := strings.Repeat(" ", len(num))
	b.WriteString(pad + paint(st.Gutter, "-->") + " " + name + ":" + num + ":" + strconv.Itoa(col) + "\n")
	b.WriteString(pad + paint(st.Gutter, " |") + "\n")
	b.WriteString(paint(st.Gutter, num+" |") + " " + line + "\n")

	// Keep tabs so the carets line up under tab-indented source.
	var marker strings.Builder
	for _, r := range src[lineStart:start] {
		if r == '\t' {
			marker.WriteByte('\t')
		} else {
			marker.WriteByte(' ')
		}
	}
	if end > lineEnd {
		end = lineEnd
	}
	width := utf8.RuneCountInString(src[start:end])
	if width < 1 {
		width = 1
	}
	b.WriteString(pad + paint(st.Gutter, " |") + " " + marker.String() + paint(st.Caret, strings.Repeat("^", width)) + "\n")
}

func clamp(n, lo, hi int) int {
	if n < lo {
		return lo
	}
	if n > hi {
		return hi
	}
	return n
}
