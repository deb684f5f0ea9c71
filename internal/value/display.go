package value

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxCellWidth caps a table cell's display width; longer cells are cut
// with an ellipsis.
const maxCellWidth = 60

// Display renders v for a human reader, possibly over several lines and
// never with a trailing newline. Strings, paths and bytes print as raw
// text; tables and non-empty lists of records print as aligned columns
// under a header and a rule; other lists print one item per line; records
// print aligned `key  value` lines; outcomes print their structured output
// or captured stdout; everything else prints as Inline.
func Display(v Value) string { return display(v, 0) }

// DisplayWidth is Display fitted to a terminal of the given width in
// columns: table columns shrink, widest first, with cut cells ending in
// "…", until a row fits; any other line longer than width is cut the same
// way. A width below 8 is treated as 8.
func DisplayWidth(v Value, width int) string {
	width = max(width, 8)
	s := display(v, width)
	if !strings.ContainsRune(s, '\n') && textWidth(s) <= width {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = truncateWidth(l, width)
	}
	return strings.Join(lines, "\n")
}

// display renders v; width > 0 fits tables into that many columns.
func display(v Value, width int) string {
	switch x := v.(type) {
	case Str:
		return string(x)
	case Path:
		return lossy(string(x))
	case Bytes:
		return lossy(string(x))
	case *Table:
		return displayGrid(x.Cols, x.N, width, func(r, c int) Value { return x.Data[c][r] })
	case *List:
		if len(x.Items) == 0 {
			return "[]"
		}
		if cols, ok := recordColumns(x.Items); ok {
			return displayGrid(cols, len(x.Items), width, func(r, c int) Value {
				v, _ := x.Items[r].(*Record).Get(cols[c])
				return v
			})
		}
		var b strings.Builder
		for i, it := range x.Items {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(displayItem(it))
		}
		return b.String()
	case *Record:
		return displayRecord(x)
	case *Outcome:
		return displayOutcome(x)
	}
	return Inline(v)
}

// displayItem renders a value nested in a list or record display: text
// raw when it fits on one line, everything else inline.
func displayItem(v Value) string {
	switch x := v.(type) {
	case Str:
		if !strings.ContainsAny(string(x), "\n\r\t\x00") {
			return string(x)
		}
	case Path:
		return lossy(string(x))
	}
	return Inline(v)
}

func displayRecord(r *Record) string {
	if r.Len() == 0 {
		return "{}"
	}
	keyW := 0
	for _, k := range r.keys {
		keyW = max(keyW, textWidth(k))
	}
	var b strings.Builder
	for i, k := range r.keys {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(k)
		val := displayItem(r.vals[i])
		if val == "" {
			continue
		}
		pad(&b, keyW-textWidth(k)+2)
		b.WriteString(val)
	}
	return b.String()
}

func displayOutcome(o *Outcome) string {
	if o.Out != nil && o.Ok() {
		return Display(o.Out)
	}
	if len(o.Stdout) > 0 {
		return strings.TrimSuffix(lossy(string(o.Stdout)), "\n")
	}
	if o.Ok() {
		return "ok"
	}
	switch {
	case o.Signal != "":
		return "failed: killed by " + o.Signal
	case o.Status != nil:
		return "failed: exit status " + strconv.Itoa(*o.Status)
	}
	return "failed"
}

// recordColumns reports whether items are all records and, if so, their
// columns in first-seen order.
func recordColumns(items []Value) ([]string, bool) {
	var cols []string
	seen := map[string]bool{}
	for _, it := range items {
		r, ok := it.(*Record)
		if !ok {
			return nil, false
		}
		for _, k := range r.keys {
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
		}
	}
	return cols, true
}

// displayGrid lays out n rows of the named columns, cell(r, c) giving each
// value (nil or null shows blank). Numeric and unit columns align right.
// With maxWidth > 0 the widest columns are narrowed until a row fits.
func displayGrid(cols []string, n int, maxWidth int, cell func(r, c int) Value) string {
	if len(cols) == 0 {
		if n == 0 {
			return "[]"
		}
		return strings.TrimSuffix(strings.Repeat("{}\n", n), "\n")
	}
	text := make([][]string, len(cols))
	width := make([]int, len(cols))
	right := make([]bool, len(cols))
	for c, name := range cols {
		width[c] = textWidth(name)
		text[c] = make([]string, n)
		numeric, sawNum := true, false
		for r := 0; r < n; r++ {
			v := cell(r, c)
			s := gridCell(v)
			text[c][r] = s
			width[c] = max(width[c], textWidth(s))
			switch v.(type) {
			case nil, Null:
			case Int, Float, Size, Duration:
				sawNum = true
			default:
				numeric = false
			}
		}
		right[c] = numeric && sawNum
	}
	if maxWidth > 0 {
		fitColumns(width, maxWidth)
		for c := range cols {
			for r := range text[c] {
				text[c][r] = truncateWidth(text[c][r], width[c])
			}
		}
	}
	var b strings.Builder
	writeRow := func(get func(c int) string) {
		var line strings.Builder
		for c := range cols {
			s := get(c)
			gap := width[c] - textWidth(s)
			if c > 0 {
				line.WriteString("  ")
			}
			if right[c] {
				pad(&line, gap)
				line.WriteString(s)
			} else {
				line.WriteString(s)
				pad(&line, gap)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
	}
	writeRow(func(c int) string { return truncateWidth(cols[c], width[c]) })
	b.WriteByte('\n')
	writeRow(func(c int) string { return strings.Repeat("─", width[c]) })
	for r := 0; r < n; r++ {
		b.WriteByte('\n')
		writeRow(func(c int) string { return text[c][r] })
	}
	return b.String()
}

// minColumnWidth is the narrowest a column shrinks to when fitting a width.
const minColumnWidth = 4

// fitColumns narrows the widest columns, one column at a time, until the
// row (columns plus two-space gaps) fits in maxWidth or every column is at
// minColumnWidth.
func fitColumns(width []int, maxWidth int) {
	total := func() int {
		t := 2 * (len(width) - 1)
		for _, w := range width {
			t += w
		}
		return t
	}
	for over := total() - maxWidth; over > 0; over = total() - maxWidth {
		widest := 0
		for c, w := range width {
			if w > width[widest] {
				widest = c
			}
		}
		if width[widest] <= minColumnWidth {
			return
		}
		second := minColumnWidth
		for c, w := range width {
			if c != widest && w > second {
				second = w
			}
		}
		width[widest] -= min(over, max(1, width[widest]-second))
		width[widest] = max(width[widest], minColumnWidth)
	}
}

func gridCell(v Value) string {
	switch v.(type) {
	case nil, Null:
		return ""
	}
	return truncateWidth(displayItem(v), maxCellWidth)
}

func pad(b *strings.Builder, n int) {
	for ; n > 0; n-- {
		b.WriteByte(' ')
	}
}

// truncateWidth cuts s to at most w display columns, ending in "…" when
// cut.
func truncateWidth(s string, w int) string {
	if textWidth(s) <= w {
		return s
	}
	used := 0
	for i, r := range s {
		rw := runeWidth(r)
		if used+rw > w-1 {
			return s[:i] + "…"
		}
		used += rw
	}
	return s
}

// textWidth is the terminal display width of s.
func textWidth(s string) int {
	w := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != 0x7f {
				w++
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		w += runeWidth(r)
		i += n
	}
	return w
}

// runeWidth approximates a rune's terminal width: 0 for combining and
// control characters, 2 for East Asian wide and emoji, else 1.
func runeWidth(r rune) int {
	switch {
	case r < 0x20 || r == 0x7f:
		return 0
	case r < 0x300:
		return 1
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == 0x200b:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf && r != 0x303f,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff,
		r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}
