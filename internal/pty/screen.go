package pty

import (
	"fmt"
	"hash/fnv"
	"image/color"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/shoalgo/shoal/proto"
)

// rowsLocked renders each screen row as plain text, trailing blanks
// trimmed; s.mu is held.
func (s *Session) rowsLocked() []string {
	rows := make([]string, s.rows)
	var b strings.Builder
	for y := range s.rows {
		b.Reset()
		for x := range s.cols {
			appendCell(&b, s.emu.CellAt(x, y))
		}
		rows[y] = strings.TrimRight(b.String(), " ")
	}
	return rows
}

// appendCell writes one cell's text: nothing for the second half of a
// wide character, a space for an empty cell.
func appendCell(b *strings.Builder, c *uv.Cell) {
	switch {
	case c == nil:
		b.WriteByte(' ')
	case c.Content == "" && c.Width == 0:
	case c.Content == "":
		b.WriteByte(' ')
	default:
		b.WriteString(c.Content)
	}
}

// lineText is a scrolled-off line's text, trailing blanks trimmed.
func lineText(l uv.Line) string {
	var b strings.Builder
	for i := range l {
		appendCell(&b, &l[i])
	}
	return strings.TrimRight(b.String(), " ")
}

// digest is a digest of what a person sees: the rows and the cursor.
func digest(rows []string, c Cursor) uint64 {
	h := fnv.New64a()
	for _, r := range rows {
		h.Write([]byte(r))
		h.Write([]byte{'\n'})
	}
	fmt.Fprintf(h, "%d,%d,%t", c.Row, c.Col, c.Hidden)
	return h.Sum64()
}

// digestLocked is the digest of the current screen; s.mu is held.
func (s *Session) digestLocked() uint64 {
	pos := s.emu.CursorPosition()
	return digest(s.rowsLocked(), Cursor{Row: pos.Y, Col: pos.X, Hidden: s.emu.CursorHidden()})
}

// drainScrollbackLocked moves the lines the emulator scrolled off into
// the session's bounded text scrollback; s.mu is held.
func (s *Session) drainScrollbackLocked() {
	sb := s.emu.Scrollback()
	if sb == nil || sb.Len() == 0 {
		return
	}
	for _, l := range sb.Lines() {
		s.scroll.push(lineText(l))
	}
	s.emu.ClearScrollback()
}

// Span is a run of cells of one row with the same non-default style.
type Span = proto.PTYSpan

// stylesLocked returns each row's styled spans (default-styled cells are
// left out); s.mu is held.
func (s *Session) stylesLocked() [][]Span {
	out := make([][]Span, s.rows)
	for y := range s.rows {
		spans := []Span{}
		var cur *uv.Style
		start := 0
		flush := func(end int) {
			if cur != nil && !cur.IsZero() {
				spans = append(spans, spanOf(*cur, start, end-start))
			}
		}
		for x := range s.cols {
			c := s.emu.CellAt(x, y)
			var st uv.Style
			if c != nil {
				st = c.Style
			}
			if cur == nil || !cur.Equal(&st) {
				flush(x)
				cur, start = &st, x
			}
		}
		flush(s.cols)
		out[y] = spans
	}
	return out
}

var attrNames = []struct {
	bit  uint8
	name string
}{
	{uv.AttrBold, "bold"}, {uv.AttrFaint, "faint"}, {uv.AttrItalic, "italic"},
	{uv.AttrBlink, "blink"}, {uv.AttrRapidBlink, "rapid_blink"}, {uv.AttrReverse, "reverse"},
	{uv.AttrConceal, "conceal"}, {uv.AttrStrikethrough, "strikethrough"},
}

func spanOf(st uv.Style, col, n int) Span {
	sp := Span{Col: col, Len: n, Fg: colorOf(st.Fg), Bg: colorOf(st.Bg)}
	for _, a := range attrNames {
		if st.Attrs&a.bit != 0 {
			sp.Attrs = append(sp.Attrs, a.name)
		}
	}
	if st.Underline != ansi.UnderlineNone {
		sp.Attrs = append(sp.Attrs, "underline")
	}
	return sp
}

// colorOf is a palette index for a palette colour, "#rrggbb" for any
// other, nil for the default.
func colorOf(c color.Color) any {
	switch v := c.(type) {
	case nil:
		return nil
	case ansi.BasicColor:
		return int(v)
	case ansi.IndexedColor:
		return int(v)
	}
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// ring is a bounded scrollback of text lines: at most maxLines lines and
// maxBytes bytes, the oldest dropped first.
type ring struct {
	lines    []string
	head, n  int
	bytes    int
	maxBytes int
}

func (r *ring) init(maxLines, maxBytes int) {
	r.lines = make([]string, maxLines)
	r.maxBytes = maxBytes
}

func (r *ring) push(s string) {
	if len(s) > r.maxBytes {
		s = s[:r.maxBytes]
	}
	for r.n > 0 && (r.n == len(r.lines) || r.bytes+len(s) > r.maxBytes) {
		r.bytes -= len(r.lines[r.head])
		r.lines[r.head] = ""
		r.head = (r.head + 1) % len(r.lines)
		r.n--
	}
	r.lines[(r.head+r.n)%len(r.lines)] = s
	r.n++
	r.bytes += len(s)
}

// last returns the newest n lines, oldest first.
func (r *ring) last(n int) []string {
	n = min(n, r.n)
	if n <= 0 {
		return nil
	}
	out := make([]string, n)
	for i := range n {
		out[i] = r.lines[(r.head+r.n-n+i)%len(r.lines)]
	}
	return out
}
