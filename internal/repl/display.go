package repl

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/value"
)

// Tall says what the REPL does with a value whose display is taller than
// the terminal.
type Tall int

const (
	// TallHead shows as many lines as fit (a table's header and first
	// rows) and a count line: "… 130 more rows (150 total)". The default.
	TallHead Tall = iota
	// TallPager hands the whole display to a pager (Display.Pager, else
	// $PAGER, else DefaultPager); when the pager cannot run the display is
	// printed whole, so nothing is lost.
	TallPager
	// TallAll prints the whole display, however tall.
	TallAll
)

// ParseTall reads the user configuration's render.paging word: "head"
// (TallHead), "auto" (TallPager) or "never" (TallAll).
func ParseTall(word string) (Tall, error) {
	switch word {
	case "head":
		return TallHead, nil
	case "auto":
		return TallPager, nil
	case "never":
		return TallAll, nil
	}
	return TallHead, fmt.Errorf("render.paging %q: want \"head\", \"auto\" or \"never\"", word)
}

// DefaultPager is the pager of TallPager when neither Display.Pager nor
// $PAGER names one: less, quitting at once when the text fits, keeping
// colours, and leaving the text on the screen.
const DefaultPager = "less -FRX"

// Display is how the REPL shows values; the zero value is its default.
// The user's configuration (render.*) fills it in.
type Display struct {
	// TimePrecision is the finest unit datetimes and times of day show
	// in: 0 is a second (the fraction is cut; the value keeps it),
	// time.Millisecond three digits of it, time.Nanosecond all of it.
	TimePrecision time.Duration
	// KeepNames keeps the `name` column of a table that repeats its
	// `path` column (`ls` of the current directory); by default it is
	// left out of the display (the rows keep it).
	KeepNames bool
	// Tall is what happens to a display taller than the terminal.
	Tall Tall
	// HeadRows, when positive, is the most lines TallHead shows of a tall
	// display besides a table's header (0: what fits the terminal).
	HeadRows int
	// PromptLines is the lines the prompt takes (0: one), kept free
	// below a head so that the header stays on the screen.
	PromptLines int
	// Pager is the pager command for TallPager ("" : $PAGER, else
	// DefaultPager); its words are split on spaces, not run by a shell.
	Pager string
}

// Style is the value display style d asks for.
func (d Display) Style() value.Style {
	p := d.TimePrecision
	if p <= 0 {
		p = time.Second
	}
	return value.Style{TimePrecision: p, FoldNames: !d.KeepNames}
}

// showValue displays a statement's value on cfg.Stdout at the terminal's
// size, as cfg.Display says.
func showValue(ctx context.Context, cfg Config, v value.Value) {
	width, height := 80, 0
	if cfg.Width != nil {
		if w := cfg.Width(); w > 0 {
			width = w
		}
	}
	if cfg.Height != nil {
		height = cfg.Height()
	}
	cfg.Display.show(ctx, cfg.Stdout, v, width, height, cfg.Page)
}

// show writes the display of v to w for a terminal width columns wide and
// height lines tall (either 0: unknown, print whole). page, when set, runs
// the pager on a text; it reports an error when the pager could not show
// it, and then the text is printed.
func (d Display) show(ctx context.Context, w io.Writer, v value.Value, width, height int, page func(ctx context.Context, text string) error) {
	st := d.Style()
	// The prompt that follows takes lines of the screen.
	height -= max(d.PromptLines, 1) - 1
	if width <= 0 || height < MinTallHeight || d.Tall == TallAll {
		writeLines(w, value.DisplayStyled(v, width, st))
		return
	}
	s, cut := value.DisplayBounded(v, value.TextBound{Width: width, Lines: height - 1, Bytes: value.MaxEncodedBytes, Style: st})
	if !cut {
		writeLines(w, s)
		return
	}
	if d.Tall == TallPager && page != nil {
		whole, cut := value.DisplayBounded(v, value.TextBound{Width: width, Bytes: MaxPagedBytes, Style: st})
		if cut {
			whole += "\n" + countLine(v, strings.Count(whole, "\n")+1)
		}
		if err := page(ctx, whole+"\n"); err == nil {
			return
		}
		fmt.Fprintln(w, whole)
		return
	}
	// The head, the count line and the prompt.
	lines := height - 2
	if d.HeadRows > 0 {
		lines = min(lines, d.HeadRows+headerLines(v))
	}
	s, _ = value.DisplayBounded(v, value.TextBound{Width: width, Lines: lines, Bytes: value.MaxEncodedBytes, Style: st})
	fmt.Fprintln(w, s)
	fmt.Fprintln(w, countLine(v, strings.Count(s, "\n")+1))
}

// writeLines writes a display and ends its last line: a text that already
// ends with a newline (what cat of a text file shows) gets no second one,
// so no blank line appears that the file does not have.
func writeLines(w io.Writer, s string) {
	if strings.HasSuffix(s, "\n") {
		_, _ = io.WriteString(w, s)
		return
	}
	_, _ = io.WriteString(w, s+"\n")
}

// headerLines is the lines a display of v spends on a header: a table's
// (or list of records') header and rule.
func headerLines(v value.Value) int {
	_, header, _ := shape(v, 0)
	return header
}

// countLine says what a head of v that shows lines lines left out: rows of
// a table, items of a list, fields of a record, lines of a text.
func countLine(v value.Value, lines int) string {
	total, header, unit := shape(v, lines)
	shown := max(lines-header, 0)
	if total <= shown {
		return "… (cut at the terminal's height)"
	}
	return fmt.Sprintf("… %d more %s (%d total)", total-shown, unit, total)
}

// shape is how v displays: the rows, items, fields or lines it has, the
// lines its header takes, and what to call its units. A list displays as
// a table when the items a display of lines lines shows are all records
// (lines 0: the first item decides).
func shape(v value.Value, lines int) (total, header int, unit string) {
	if o, ok := v.(*value.Outcome); ok && o.Ok() && o.Out != nil {
		v = o.Out
	}
	unit = "lines"
	switch x := v.(type) {
	case *value.Table:
		total, unit = x.N, "rows"
		if len(x.Cols) > 0 {
			header = 2 // the header and its rule
		}
	case *value.List:
		total, unit = len(x.Items), "items"
		if len(x.Items) > 0 && allRecords(x.Items[:min(len(x.Items), max(lines, 1))]) {
			unit, header = "rows", 2
		}
	case *value.Record:
		total, unit = x.Len(), "fields"
	case value.Str:
		total = strings.Count(string(x), "\n") + 1
	case value.Path:
		total = strings.Count(string(x), "\n") + 1
	case value.Bytes:
		total = strings.Count(string(x), "\n") + 1
	case *value.Outcome:
		total = strings.Count(strings.TrimSuffix(string(x.Stdout), "\n"), "\n") + 1
	}
	return total, header, unit
}

func allRecords(items []value.Value) bool {
	for _, it := range items {
		if _, ok := it.(*value.Record); !ok {
			return false
		}
	}
	return true
}
