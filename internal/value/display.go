package value

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxCellWidth caps a table cell's display width; longer cells are cut
// with an ellipsis.
const maxCellWidth = 60

// Display renders v for a human reader, possibly over several lines and
// never with a trailing newline. Strings, paths and bytes print as raw
// text; tables and non-empty lists of records print as aligned columns
// under a header and a rule; other lists print one item per line after
// its index (so a list never displays as a text would); records
// print aligned `key  value` lines; outcomes print their structured output
// or captured stdout; everything else prints as Inline. A display longer
// than MaxEncodedBytes is cut there, ending in "…".
func Display(v Value) string { return displayAll(v, 0) }

// DisplayWidth is Display fitted to a terminal of the given width in
// columns: table columns shrink, widest first, with cut cells ending in
// "…", until a row fits; any other line longer than width is cut the same
// way. A width below 8 is treated as 8.
func DisplayWidth(v Value, width int) string { return displayAll(v, max(width, 8)) }

func displayAll(v Value, width int) string {
	s, cut := DisplayBounded(v, TextBound{Width: width, Bytes: MaxEncodedBytes})
	if cut {
		s += elided
	}
	return s
}

// DisplayStyled is DisplayWidth (Display when width is 0) in style st.
func DisplayStyled(v Value, width int, st Style) string {
	if width > 0 {
		width = max(width, 8)
	}
	s, cut := DisplayBounded(v, TextBound{Width: width, Bytes: MaxEncodedBytes, Style: st})
	if cut {
		s += elided
	}
	return s
}

// TextBound bounds a rendering: at most Bytes bytes and Lines lines (0: no
// limit on lines), each line fitted to Width columns (0: not fitted; else
// at least 8), shown in Style (the zero Style: the plain display).
type TextBound struct {
	Width, Lines, Bytes int
	Style               Style
}

// Style is what a display for a person at a terminal (the REPL, the shoal
// command's final value) leaves out of the plain one, which agents and
// files get. The value itself is never changed: its fields, its inline and
// wire forms keep everything.
type Style struct {
	// TimePrecision is the finest unit datetimes and times of day show in
	// (in a display's lines, records and table cells): time.Second cuts
	// the fraction, time.Millisecond keeps three digits of it; 0 (or a
	// nanosecond) shows all of it.
	TimePrecision time.Duration
	// FoldNames leaves out the `name` column of a table (or list of
	// records) that also has a `path` column when every row shown has a
	// name equal to its path: `ls` of the current directory, where the two
	// repeat each other.
	FoldNames bool
}

// Human is the style of values shown to a person: times to the second,
// no repeated `name` column.
var Human = Style{TimePrecision: time.Second, FoldNames: true}

// DisplayBounded renders v as DisplayWidth does (as Display when b.Width
// is 0) but keeps at most b.Lines lines and b.Bytes bytes; cut reports
// whether anything was left out. It does work in proportion to what it
// keeps, not to the size of v: only the rows and fields that can be shown
// are laid out, only the columns that can start within the width, and
// long strings are read only as far as they are shown (finding the end of
// a line cut at the width is one scan for its newline).
func DisplayBounded(v Value, b TextBound) (s string, cut bool) {
	if b.Width > 0 {
		b.Width = max(b.Width, 8)
	}
	d := &displayer{t: textBuf{limit: max(b.Bytes, 0)}, width: b.Width, maxLines: b.Lines, style: b.Style}
	d.value(v, 0)
	return string(d.t.b), d.cut || d.t.cut
}

// displayer writes a display line by line into a bounded buffer.
type displayer struct {
	t        textBuf
	width    int // columns per line; 0: not fitted
	maxLines int // 0: unlimited
	lines    int // lines started so far
	cut      bool
	style    Style
}

// done reports that no further line fits.
func (d *displayer) done() bool {
	return d.t.full() || d.maxLines > 0 && d.lines >= d.maxLines
}

// room is the number of bytes a producer needs to render for the next
// line: what is left of the budget, and a little more so that a cut shows.
func (d *displayer) room() int { return d.t.room() + utf8.UTFMax }

// line writes one line, which holds no newline, cut to the width.
func (d *displayer) line(l string) { d.textLine(l, false) }

// textLine is line, with invalid UTF-8 replaced when lossy is set (the
// raw text of paths, bytes and captured output).
func (d *displayer) textLine(l string, lossy bool) {
	if d.done() {
		d.cut = true
		return
	}
	if d.lines > 0 {
		d.t.writeByte('\n')
	}
	d.lines++
	if len(l) > d.room() {
		l = l[:d.room()] // the buffer cannot hold more
	}
	if lossy {
		l = lossyText(l)
	}
	if d.width > 0 {
		l = truncateWidth(l, d.width)
	}
	d.t.writeString(l)
}

// text writes s, which may hold newlines, as lines. It looks for the end
// of a line only as far as it can show it, except that a line cut at the
// width is skipped with one scan for its newline. With lossy set, invalid
// UTF-8 in the lines shown is replaced.
func (d *displayer) text(s string, lossy bool) { displayText(d, s, lossy) }

// displayText is text over a string or a byte slice (captured output),
// converting only the part of each line it shows.
func displayText[S string | []byte](d *displayer, s S, lossy bool) {
	for {
		if d.done() {
			d.cut = true
			return
		}
		look := s[:min(len(s), d.room())]
		j := indexNewline(look)
		if j < 0 && len(look) < len(s) && d.width > 0 && textWidth(string(look)) > d.width {
			// The line is cut at the width, so what follows it can show:
			// find its end. (A line the width does not cut fills the
			// buffer, and nothing after it could show.)
			j = indexNewline(s)
		}
		if j < 0 {
			d.textLine(string(look), lossy)
			if len(look) < len(s) {
				d.cut = true
			}
			return
		}
		d.textLine(string(s[:min(j, d.room())]), lossy)
		s = s[j+1:]
	}
}

func indexNewline[S string | []byte](s S) int {
	switch x := any(s).(type) {
	case string:
		return strings.IndexByte(x, '\n')
	case []byte:
		return bytes.IndexByte(x, '\n')
	}
	return -1
}

// value displays v at nesting depth.
func (d *displayer) value(v Value, depth int) {
	if depth > MaxDepth {
		d.line(elided)
		return
	}
	switch x := v.(type) {
	case Str:
		d.text(string(x), false)
	case Path:
		d.text(string(x), true)
	case Bytes:
		d.text(string(x), true)
	case *Table:
		cols, cell := d.foldNames(x.Cols, x.N, func(r, c int) Value { return x.Data[c][r] })
		d.grid(cols, x.N, cell, depth)
	case *List:
		if len(x.Items) == 0 {
			d.line("[]")
			return
		}
		if cols, ok := recordColumns(x.Items[:min(len(x.Items), d.rowsShown())]); ok {
			cols, cell := d.foldNames(cols, len(x.Items), func(r, c int) Value {
				if rec, ok := x.Items[r].(*Record); ok {
					v, _ := rec.Get(cols[c])
					return v
				}
				return Nil
			})
			d.grid(cols, len(x.Items), cell, depth)
			return
		}
		// Each item on a line after its index, so that a list never
		// shows as a text would: ["a", "b"] is "0  a" and "1  b", the
		// text "a\nb" is its two lines.
		iw := len(strconv.Itoa(len(x.Items) - 1))
		var num []byte
		for i, it := range x.Items {
			if d.done() {
				d.cut = true
				return
			}
			num = strconv.AppendInt(num[:0], int64(i), 10)
			d.text(strings.Repeat(" ", iw-len(num))+string(num)+"  "+d.item(it, depth+1, d.itemBudget()), false)
		}
	case *Record:
		d.record(x, depth)
	case *Outcome:
		d.outcome(x, depth)
	default:
		s, cut := InlineLimit(d.styled(v), d.room())
		d.text(s, false)
		d.cut = d.cut || cut
	}
}

// foldNames is the columns and cells of a grid of n rows as the style
// shows them: without `name` when FoldNames is set, a `path` column exists
// and every row that can be shown has a name equal to its path (as text).
// It looks at no more rows than the display can show.
func (d *displayer) foldNames(cols []string, n int, cell func(r, c int) Value) ([]string, func(r, c int) Value) {
	if !d.style.FoldNames || n == 0 {
		return cols, cell // an empty table shows the columns it has
	}
	pathCol, nameCol := -1, -1
	for c, name := range cols {
		switch name {
		case "path":
			pathCol = c
		case "name":
			nameCol = c
		}
	}
	if pathCol < 0 || nameCol < 0 {
		return cols, cell
	}
	for r := range min(n, d.rowsShown()) {
		if !sameText(cell(r, pathCol), cell(r, nameCol)) {
			return cols, cell
		}
	}
	kept := make([]string, 0, len(cols)-1)
	index := make([]int, 0, len(cols)-1)
	for c, name := range cols {
		if c != nameCol {
			kept = append(kept, name)
			index = append(index, c)
		}
	}
	return kept, func(r, c int) Value { return cell(r, index[c]) }
}

// sameText reports whether a and b are both texts (str or path) with the
// same content.
func sameText(a, b Value) bool {
	text := func(v Value) (string, bool) {
		switch x := v.(type) {
		case Str:
			return string(x), true
		case Path:
			return string(x), true
		}
		return "", false
	}
	x, ok1 := text(a)
	y, ok2 := text(b)
	return ok1 && ok2 && x == y
}

// rowsShown bounds the rows or items a display can show: each takes a
// line, and each line at least a byte.
func (d *displayer) rowsShown() int {
	n := d.t.room() + 1
	if d.maxLines > 0 {
		n = min(n, d.maxLines)
	}
	return n
}

// itemBudget bounds the rendering of one nested item: what can be shown
// on one line.
func (d *displayer) itemBudget() int {
	n := d.room()
	if d.width > 0 {
		n = min(n, d.width*utf8.UTFMax+16)
	}
	return n
}

// item renders a value nested in a list or record display, in at most n
// bytes: text raw when it fits on one line, everything else inline. A
// text is judged by the part that can be shown.
func (d *displayer) item(v Value, depth, n int) string {
	if depth > MaxDepth {
		return elided
	}
	switch x := v.(type) {
	case Str:
		s := string(x)
		if len(s) > n {
			s = s[:n]
		}
		if !strings.ContainsAny(s, "\n\r\t\x00") {
			if len(s) < len(x) {
				return s + elided
			}
			return s
		}
	case Path:
		s := prefix(string(x), n)
		if len(s) < len(x) {
			return lossyText(s) + elided
		}
		return lossy(s)
	}
	s, cut := InlineLimit(d.styled(v), n)
	if cut {
		s += elided
	}
	return s
}

// styled is v as the display's style shows it: a datetime or time of day
// cut to the style's time precision.
func (d *displayer) styled(v Value) Value {
	p := d.style.TimePrecision
	if p <= time.Nanosecond {
		return v
	}
	switch x := v.(type) {
	case DateTime:
		return DateTime{T: x.T.Truncate(p)}
	case Time:
		return x - x%Time(p)
	}
	return v
}

func (d *displayer) record(r *Record, depth int) {
	if r.Len() == 0 {
		d.line("{}")
		return
	}
	keys := r.keys[:min(len(r.keys), d.t.room()+1)] // each line takes a byte
	if d.maxLines > 0 {
		keys = keys[:min(len(keys), d.maxLines-d.lines)]
	}
	budget := d.itemBudget()
	keyW := 0
	for _, k := range keys {
		keyW = max(keyW, textWidth(prefix(k, budget)))
	}
	for i, k := range r.keys {
		if d.done() {
			d.cut = true
			return
		}
		var b strings.Builder
		k = prefix(k, budget)
		b.WriteString(k)
		if val := d.item(r.vals[i], depth+1, budget); val != "" {
			pad(&b, keyW-textWidth(k)+2)
			b.WriteString(val)
		}
		d.text(b.String(), false)
	}
}

func (d *displayer) outcome(o *Outcome, depth int) {
	switch {
	case o.Out != nil && o.Ok():
		d.value(o.Out, depth+1)
	case len(o.Stdout) > 0:
		displayText(d, bytes.TrimSuffix(o.Stdout, []byte("\n")), true)
	case o.Ok():
		d.line("ok")
	case o.Signal != "":
		d.line("failed: killed by " + o.Signal)
	case o.Status != nil:
		d.line("failed: exit status " + strconv.Itoa(*o.Status))
	default:
		d.line("failed")
	}
}

// prefix is s cut to at most n bytes (n < 0: all of it).
func prefix(s string, n int) string {
	if n >= 0 && len(s) > n {
		return s[:n]
	}
	return s
}

// lossyText is s with invalid UTF-8 replaced by U+FFFD, as lossy does,
// except that a rune cut at the end of s is dropped rather than replaced.
func lossyText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	if i := len(s) - 1; i >= 0 && s[i] >= utf8.RuneSelf {
		// A rune cut by a budget is not an invalid byte of the text.
		for j := i; j >= 0 && j > i-utf8.UTFMax; j-- {
			if utf8.RuneStart(s[j]) {
				if !utf8.FullRuneInString(s[j:]) {
					s = s[:j]
				}
				break
			}
		}
	}
	return lossy(s)
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

// grid lays out n rows of the named columns, cell(r, c) giving each value
// (nil or null shows blank). Numeric and unit columns align right. With a
// width the widest columns are narrowed until a row fits. Only the rows
// that fit in the line budget are laid out, and only the columns that can
// start within the width (each takes at least its two-space gap).
func (d *displayer) grid(cols []string, n int, cell func(r, c int) Value, depth int) {
	if len(cols) == 0 {
		if n == 0 {
			d.line("[]")
			return
		}
		for r := 0; r < n; r++ {
			if d.done() {
				d.cut = true
				return
			}
			d.line("{}")
		}
		return
	}
	rows := min(n, d.t.room()+1) // each row takes a line, each line a byte
	if d.maxLines > 0 {
		rows = min(rows, max(d.maxLines-d.lines-2, 0))
	}
	shown := min(len(cols), d.room()/2+1)
	if d.width > 0 {
		shown = min(shown, d.width/2+2) // the rest start past the width
	}
	cellBudget := maxCellWidth*utf8.UTFMax + 16
	head := make([]string, shown)
	width := make([]int, shown)
	numeric := make([]bool, shown)
	sawNum := make([]bool, shown)
	for c := range head {
		head[c] = prefix(cols[c], d.itemBudget())
		width[c] = textWidth(head[c])
		numeric[c] = true
	}
	// Rows are laid out until they could not all be shown: each row's
	// line takes at least its newline and every cell's text, or, fitted
	// to a width, what fitting may leave of it (minColumnWidth columns).
	var text [][]string // text[r][c]
	budget := d.t.room()
	for r := 0; r < rows && budget >= 0; r++ {
		line := make([]string, shown)
		budget--
		for c := range line {
			v := cell(r, c)
			s := d.gridCell(v, depth+1, cellBudget)
			line[c] = s
			w := textWidth(s)
			width[c] = max(width[c], w)
			if d.width > 0 {
				budget -= min(w, minColumnWidth) // fitting may narrow it this far
			} else {
				budget -= w
			}
			switch v.(type) {
			case nil, Null:
			case Int, Float, Size, Duration:
				sawNum[c] = true
			default:
				numeric[c] = false
			}
		}
		text = append(text, line)
	}
	right := make([]bool, shown)
	for c := range right {
		right[c] = numeric[c] && sawNum[c]
	}
	if d.width > 0 {
		fitColumns(width, d.width)
		for _, line := range text {
			for c := range line {
				line[c] = truncateWidth(line[c], width[c])
			}
		}
	}
	row := func(get func(c int) string) {
		var line strings.Builder
		for c := range head {
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
		d.line(strings.TrimRight(line.String(), " "))
	}
	row(func(c int) string { return truncateWidth(head[c], width[c]) })
	row(func(c int) string { return strings.Repeat("─", width[c]) })
	for _, line := range text {
		if d.done() {
			d.cut = true
			return
		}
		row(func(c int) string { return line[c] })
	}
	if len(text) < n {
		d.cut = true
	}
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

func (d *displayer) gridCell(v Value, depth, n int) string {
	switch v.(type) {
	case nil, Null:
		return ""
	}
	return truncateWidth(d.item(v, depth, n), maxCellWidth)
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
