package namespaces

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

func csvNamespace() *value.Namespace {
	return newNamespace("csv", nil, map[string]func(value.Env, value.Args) (value.Value, error){
		"parse":     csvParse,
		"stringify": csvStringify,
	})
}

// csvParse implements csv.parse(text: str) -> table. The first row names
// the columns; every cell stays a str. Rows must all have the header's
// width.
func csvParse(_ value.Env, a value.Args) (value.Value, error) {
	const fn = "csv.parse"
	text, err := textArg(fn, a)
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(strings.NewReader(text))
	r.ReuseRecord = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return &value.Table{}, nil
	}
	if err != nil {
		return nil, parseFailure(fn, "CSV", err)
	}
	t := &value.Table{Cols: make([]string, 0, len(header)), Data: make([][]value.Value, len(header))}
	for _, h := range header {
		if t.Col(h) >= 0 {
			return nil, value.Errorf(value.CodeArg, "%s: invalid CSV: duplicate column %q", fn, h)
		}
		t.Cols = append(t.Cols, h)
	}
	for {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, parseFailure(fn, "CSV", err)
		}
		for i, cell := range row {
			t.Data[i] = append(t.Data[i], value.Str(cell))
		}
		t.N++
	}
	return t, nil
}

// csvStringify implements csv.stringify(table | list<record> | record).
// With records, the first one's keys are the header; later missing keys
// are empty cells and extra keys are dropped. A str cell is written as
// is, null as an empty cell, any other value in its inline rendering.
func csvStringify(_ value.Env, a value.Args) (value.Value, error) {
	const fn = "csv.stringify"
	if err := arity(fn, a, 1, 1); err != nil {
		return nil, err
	}
	var (
		cols []string
		rows int
		cell func(r, c int) (value.Value, bool)
	)
	switch x := a.Pos[0].(type) {
	case *value.Table:
		cols, rows = x.Cols, x.N
		cell = func(r, c int) (value.Value, bool) { return x.Data[c][r], true }
	case *value.Record:
		cols, rows = x.Keys(), 1
		cell = func(_, c int) (value.Value, bool) { return x.Values()[c], true }
	case *value.List:
		recs := make([]*value.Record, len(x.Items))
		for i, it := range x.Items {
			rec, ok := it.(*value.Record)
			if !ok {
				return nil, value.Errorf(value.CodeType, "%s expects a list of records, item %d is %s", fn, i, value.TypeName(it))
			}
			recs[i] = rec
		}
		if len(recs) > 0 {
			cols = recs[0].Keys()
		}
		rows = len(recs)
		cell = func(r, c int) (value.Value, bool) { return recs[r].Get(cols[c]) }
	default:
		return nil, value.Errorf(value.CodeType, "%s expects a table, a list of records or a record, got %s", fn, value.TypeName(a.Pos[0]))
	}
	var buf strings.Builder
	w := csv.NewWriter(&buf)
	line := make([]string, len(cols))
	if len(cols) > 0 {
		if err := w.Write(cols); err != nil {
			return nil, value.Errorf(value.CodeCustom, "%s: %v", fn, err)
		}
	}
	for r := range rows {
		for c := range cols {
			v, ok := cell(r, c)
			switch {
			case !ok || v == nil || v.Kind() == value.KNull:
				line[c] = ""
			case v.Kind() == value.KStr:
				line[c] = string(v.(value.Str))
			default:
				line[c] = value.Inline(v)
			}
		}
		if err := w.Write(line); err != nil {
			return nil, value.Errorf(value.CodeCustom, "%s: %v", fn, err)
		}
		if w.Flush(); buf.Len() > value.MaxEncodedBytes {
			return nil, value.Errorf(value.CodeTooLarge, "%s: the CSV text would pass %s", fn, value.FormatSize(value.MaxEncodedBytes)).
				WithHint("encode a part of the table at a time")
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, value.Errorf(value.CodeCustom, "%s: %v", fn, err)
	}
	return value.Str(buf.String()), nil
}
