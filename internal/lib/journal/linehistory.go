package journal

// `history` without a journal: the standalone REPL has no journal (the
// kernel keeps it), but it does have the lines the person typed, so there
// `history` shows those, as a shell's history does.

import (
	"strings"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/value"
)

// lineHistoryTable is `history` over the typed lines: columns n (1 is the
// oldest kept) and line; --head keeps the lines whose first word is WORD,
// --limit the newest N (DefaultLimit by default).
func lineHistoryTable(c *eval.BuiltinCall, lines []string, f eval.JournalFilter) (value.Value, error) {
	if f.Principal != "" || f.Session != "" || f.OK != nil || f.Since != 0 || f.Until != 0 || len(f.Effects) > 0 {
		return nil, c.Errorf(value.CodeArg, "the line history has only --head and --limit").
			WithHint("the other filters read the journal, which shoal-kernel keeps: run shoal --kernel, or shoal history")
	}
	type row struct {
		n    int
		line string
	}
	var rows []row
	for i, l := range lines {
		if f.Head != "" {
			first, _, _ := strings.Cut(strings.TrimSpace(l), " ")
			if first != f.Head {
				continue
			}
		}
		rows = append(rows, row{i + 1, l})
	}
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if len(rows) > limit {
		rows = rows[len(rows)-limit:]
	}
	t := &value.Table{Cols: []string{"n", "line"}, Data: [][]value.Value{make([]value.Value, len(rows)), make([]value.Value, len(rows))}, N: len(rows)}
	for i, r := range rows {
		t.Data[0][i] = value.Int(r.n)
		t.Data[1][i] = value.Str(r.line)
	}
	return t, nil
}
