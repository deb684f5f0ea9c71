package adapters

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/value"
)

// Field is one named, typed field of an output type hint.
type Field struct {
	Name string
	Type string
}

// needsFields reports the parsers that take their schema from the hint.
func needsFields(parse string) bool {
	switch parse {
	case "cols", "cols2", "tsv-headerless", "z-records":
		return true
	}
	return false
}

// HintFields reads the fields of a hint such as
// `table<{pid: int, user: str}>`: the first brace-delimited field list,
// names optionally quoted. A hint without one is an error.
func HintFields(hint string) ([]Field, error) {
	if len(hint) > MaxTypeBytes {
		return nil, fmt.Errorf("type hint longer than %d bytes", MaxTypeBytes)
	}
	open := strings.IndexByte(hint, '{')
	end := strings.LastIndexByte(hint, '}')
	if open < 0 || end < open {
		return nil, fmt.Errorf("%q names no fields ({name: type, …})", hint)
	}
	var fields []Field
	depth, start := 0, open+1
	body := hint[:end]
	for i := open + 1; i <= len(body); i++ {
		if i < len(body) {
			switch body[i] {
			case '<', '{', '[':
				depth++
				continue
			case '>', '}', ']':
				depth--
				continue
			case ',':
				if depth != 0 {
					continue
				}
			default:
				continue
			}
		}
		part := strings.TrimSpace(body[start:i])
		start = i + 1
		if part == "" {
			continue
		}
		colon := strings.LastIndex(part, ":")
		if colon < 0 {
			return nil, fmt.Errorf("field %q has no type (name: type)", part)
		}
		name := strings.TrimSpace(part[:colon])
		if uq, err := strconv.Unquote(name); err == nil {
			name = uq
		}
		if name == "" {
			return nil, fmt.Errorf("a field in %q has no name", hint)
		}
		fields = append(fields, Field{Name: name, Type: strings.TrimSpace(part[colon+1:])})
		if len(fields) > MaxFields {
			return nil, fmt.Errorf("more than %d fields", MaxFields)
		}
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("%q names no fields", hint)
	}
	return fields, nil
}

// ParseOutput parses a call's captured stdout with its declared strategy.
// ok is false when the strategy is none or the output does not keep the
// parser's contract: the caller then keeps the raw output, never a
// partial value.
func ParseOutput(spec *Spec, stdout []byte) (v value.Value, ok bool) {
	var err error
	switch spec.Parse {
	case "", "none":
		return nil, false
	case "json":
		if v, err = value.ParseJSON(stdout); err != nil {
			// `go list -json ./...` prints one document per package.
			v, err = parseJSONStream(stdout)
		}
	case "ndjson":
		v, err = parseNDJSON(stdout)
	case "csv":
		v, err = parseDelimited(stdout, ',', spec.OutType)
	case "tsv":
		v, err = parseDelimited(stdout, '\t', spec.OutType)
	case "tsv-headerless":
		v, err = parseHeaderless(stdout, spec.OutType)
	case "cols":
		v, err = parseCols(stdout, 1, spec.OutType)
	case "cols2":
		v, err = parseCols(stdout, 2, spec.OutType)
	case "z-records":
		v, err = parseZRecords(stdout, spec.OutType)
	case "porcelain-v2":
		v, _, err = parsePorcelain(stdout)
	case "lines":
		v, err = parseLines(stdout, spec.OutType == "list<path>")
	case "kv":
		v, err = parseKV(stdout)
	default:
		return nil, false
	}
	if err != nil {
		return nil, false
	}
	return v, true
}

// splitLines splits text into lines without their terminators, dropping
// one final empty line; more than MaxOutputRows is an error.
func splitLines(b []byte) ([]string, error) {
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("output is not UTF-8")
	}
	s := strings.TrimSuffix(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	if s == "" {
		return nil, nil
	}
	if strings.Count(s, "\n") >= MaxOutputRows {
		return nil, fmt.Errorf("more than %d lines", MaxOutputRows)
	}
	return strings.Split(s, "\n"), nil
}

func parseLines(b []byte, paths bool) (value.Value, error) {
	lines, err := splitLines(b)
	if err != nil {
		return nil, err
	}
	items := make([]value.Value, len(lines))
	for i, l := range lines {
		if paths {
			items[i] = value.Path(l)
		} else {
			items[i] = value.Str(l)
		}
	}
	return value.NewList(items), nil
}

// parseJSONStream parses concatenated JSON documents (whitespace between
// them, one or many lines each): a table when they are records sharing
// keys, else a list. Fewer than two documents is not a stream.
func parseJSONStream(b []byte) (value.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var items []value.Value
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		if len(items) >= MaxOutputRows {
			return nil, fmt.Errorf("more than %d documents", MaxOutputRows)
		}
		v, err := value.ParseJSON(raw)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
	if len(items) < 2 {
		return nil, fmt.Errorf("not a stream of JSON documents")
	}
	return rowsValue(items), nil
}

func parseNDJSON(b []byte) (value.Value, error) {
	lines, err := splitLines(b)
	if err != nil {
		return nil, err
	}
	var items []value.Value
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		v, err := value.ParseJSON([]byte(l))
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
	return rowsValue(items), nil
}

// rowsValue makes a table of records sharing one key set, else a list.
func rowsValue(items []value.Value) value.Value {
	if len(items) == 0 {
		return value.NewList(nil)
	}
	first, ok := items[0].(*value.Record)
	if !ok {
		return value.NewList(items)
	}
	cols := first.Keys()
	for _, it := range items[1:] {
		r, ok := it.(*value.Record)
		if !ok || !sameKeys(r.Keys(), cols) {
			return value.NewList(items)
		}
	}
	t := newTable(cols, len(items))
	for _, it := range items {
		r := it.(*value.Record)
		for c, k := range cols {
			v, _ := r.Get(k)
			t.Data[c] = append(t.Data[c], v)
		}
	}
	t.N = len(items)
	return t
}

func sameKeys(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func newTable(cols []string, n int) *value.Table {
	t := &value.Table{Cols: append([]string(nil), cols...), Data: make([][]value.Value, len(cols))}
	for c := range t.Data {
		t.Data[c] = make([]value.Value, 0, n)
	}
	return t
}

// tableOf builds a table from rows of cells typed by fields.
func tableOf(fields []Field, rows [][]string) (*value.Table, error) {
	cols := make([]string, len(fields))
	for i, f := range fields {
		cols[i] = f.Name
	}
	t := newTable(cols, len(rows))
	for _, row := range rows {
		for c, f := range fields {
			v, err := Cell(row[c], f.Type)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			t.Data[c] = append(t.Data[c], v)
		}
	}
	t.N = len(rows)
	return t, nil
}

func parseDelimited(b []byte, sep rune, hint string) (value.Value, error) {
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("output is not UTF-8")
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.Comma = sep
	r.FieldsPerRecord = 0 // every row as long as the header
	r.LazyQuotes = sep == '\t'
	header, err := r.Read()
	if err != nil {
		return nil, err
	}
	if len(header) > MaxFields {
		return nil, fmt.Errorf("more than %d columns", MaxFields)
	}
	types := map[string]string{}
	if hint != "" {
		if fs, err := HintFields(hint); err == nil {
			for _, f := range fs {
				types[f.Name] = f.Type
			}
		}
	}
	fields := make([]Field, len(header))
	for i, h := range header {
		fields[i] = Field{Name: h, Type: types[h]}
		if fields[i].Type == "" {
			fields[i].Type = "str"
		}
	}
	var rows [][]string
	for {
		rec, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		if len(rows) >= MaxOutputRows {
			return nil, fmt.Errorf("more than %d rows", MaxOutputRows)
		}
		rows = append(rows, rec)
	}
	return tableOf(fields, rows)
}

func parseHeaderless(b []byte, hint string) (value.Value, error) {
	fields, err := HintFields(hint)
	if err != nil {
		return nil, err
	}
	lines, err := splitLines(b)
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for _, l := range lines {
		if l == "" {
			continue
		}
		cells := strings.Split(l, "\t")
		if len(cells) != len(fields) {
			return nil, fmt.Errorf("a line has %d fields, the hint %d", len(cells), len(fields))
		}
		rows = append(rows, cells)
	}
	return tableOf(fields, rows)
}

func parseCols(b []byte, preamble int, hint string) (value.Value, error) {
	fields, err := HintFields(hint)
	if err != nil {
		return nil, err
	}
	lines, err := splitLines(b)
	if err != nil {
		return nil, err
	}
	if len(lines) < preamble {
		return nil, fmt.Errorf("no header")
	}
	var rows [][]string
	for _, l := range lines[preamble:] {
		cells := strings.Fields(l)
		if len(cells) == 0 {
			continue
		}
		if len(cells) < len(fields) {
			return nil, fmt.Errorf("a line has %d columns, the hint %d", len(cells), len(fields))
		}
		if len(cells) > len(fields) {
			// The last column keeps its spaces: a mount point, a command line.
			last := len(fields) - 1
			idx := nthFieldStart(l, last)
			cells = append(cells[:last], strings.TrimRight(l[idx:], " \t"))
		}
		rows = append(rows, cells)
	}
	return tableOf(fields, rows)
}

// nthFieldStart is the byte offset where whitespace-separated field n
// (0-based) of l starts.
func nthFieldStart(l string, n int) int {
	i, field := 0, -1
	for i < len(l) {
		for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			i++
		}
		if i >= len(l) {
			break
		}
		field++
		if field == n {
			return i
		}
		for i < len(l) && l[i] != ' ' && l[i] != '\t' {
			i++
		}
	}
	return len(l)
}

func parseZRecords(b []byte, hint string) (value.Value, error) {
	fields, err := HintFields(hint)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("output is not UTF-8")
	}
	s := strings.TrimRight(string(b), "\x00\n")
	var rows [][]string
	if s != "" {
		parts := strings.Split(s, "\x00")
		if len(parts)%len(fields) != 0 {
			return nil, fmt.Errorf("%d fields do not make whole records of %d", len(parts), len(fields))
		}
		if len(parts)/len(fields) > MaxOutputRows {
			return nil, fmt.Errorf("more than %d records", MaxOutputRows)
		}
		for i := 0; i < len(parts); i += len(fields) {
			row := parts[i : i+len(fields)]
			row[0] = strings.TrimLeft(row[0], "\n")
			rows = append(rows, row)
		}
	}
	return tableOf(fields, rows)
}

// porcelainCols are the columns of a parsed `git status --porcelain=v2`.
var porcelainCols = []string{"status", "state", "path", "orig"}

// parsePorcelain parses `git status --porcelain=v2 [--branch]`: the
// table of changes and what the branch headers say.
func parsePorcelain(b []byte) (*value.Table, *statusBranch, error) {
	sb := &statusBranch{}
	lines, err := splitLines(b)
	if err != nil {
		return nil, nil, err
	}
	t := newTable(porcelainCols, len(lines))
	add := func(status, state, path string, orig value.Value) {
		for c, v := range []value.Value{value.Str(status), value.Str(state), value.Path(path), orig} {
			t.Data[c] = append(t.Data[c], v)
		}
		t.N++
	}
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "# branch."):
			if err := sb.header(l); err != nil {
				return nil, nil, err
			}
		case l == "" || strings.HasPrefix(l, "# "):
			continue
		case strings.HasPrefix(l, "? "):
			add("?", "untracked", l[2:], value.Nil)
		case strings.HasPrefix(l, "! "):
			add("!", "ignored", l[2:], value.Nil)
		case strings.HasPrefix(l, "1 "):
			f := strings.SplitN(l, " ", 9)
			if len(f) != 9 || len(f[1]) != 2 {
				return nil, nil, fmt.Errorf("malformed ordinary record %q", l)
			}
			add(f[1], xyState(f[1]), f[8], value.Nil)
		case strings.HasPrefix(l, "2 "):
			f := strings.SplitN(l, " ", 10)
			if len(f) != 10 || len(f[1]) != 2 {
				return nil, nil, fmt.Errorf("malformed rename record %q", l)
			}
			paths := strings.SplitN(f[9], "\t", 2)
			if len(paths) != 2 {
				return nil, nil, fmt.Errorf("rename record without its original path %q", l)
			}
			add(f[1], xyState(f[1]), paths[0], value.Path(paths[1]))
		case strings.HasPrefix(l, "u "):
			// An unmerged path: u XY sub m1 m2 m3 mW h1 h2 h3 path.
			f := strings.SplitN(l, " ", 11)
			if len(f) != 11 || len(f[1]) != 2 {
				return nil, nil, fmt.Errorf("malformed unmerged record %q", l)
			}
			add(f[1], "unmerged", f[10], value.Nil)
		default:
			// Anything else is not modelled: the whole table falls back
			// to raw output.
			return nil, nil, fmt.Errorf("unsupported record %q", l)
		}
	}
	return t, sb, nil
}

// xyState names a porcelain XY code: the index change when there is one,
// else the worktree change.
func xyState(xy string) string {
	c := xy[0]
	if c == '.' {
		c = xy[1]
	}
	switch c {
	case 'M':
		return "modified"
	case 'A':
		return "added"
	case 'D':
		return "deleted"
	case 'R':
		return "renamed"
	case 'C':
		return "copied"
	case 'T':
		return "typechange"
	case 'U':
		return "unmerged"
	}
	return "unknown"
}

func parseKV(b []byte) (value.Value, error) {
	lines, err := splitLines(b)
	if err != nil {
		return nil, err
	}
	var keys []string
	var vals []value.Value
	seen := map[string]int{}
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		eq := strings.IndexByte(l, '=')
		co := strings.Index(l, ": ")
		var k, v string
		switch {
		case eq > 0 && (co < 0 || eq < co):
			k, v = l[:eq], l[eq+1:]
		case co > 0:
			k, v = strings.TrimSpace(l[:co]), strings.TrimSpace(l[co+2:])
		default:
			return nil, fmt.Errorf("line %q is not key=value or key: value", l)
		}
		if i, ok := seen[k]; ok {
			vals[i] = value.Str(v)
			continue
		}
		seen[k] = len(keys)
		keys = append(keys, k)
		vals = append(vals, value.Str(v))
	}
	return value.NewRecord(keys, vals), nil
}

// Cell converts one output cell to its hinted type. A cell that does not
// convert is an error, which makes the whole parse fall back to raw.
func Cell(s, typ string) (value.Value, error) {
	fail := func() (value.Value, error) { return nil, fmt.Errorf("%q is not %s", s, typ) }
	switch strings.TrimSuffix(typ, "?") {
	case "path":
		return value.Path(s), nil
	case "int":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fail()
		}
		return value.Int(n), nil
	case "float":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fail()
		}
		return value.Float(f), nil
	case "bool":
		switch s {
		case "true":
			return value.Bool(true), nil
		case "false":
			return value.Bool(false), nil
		}
		return fail()
	case "size":
		if n, ok := value.ParseSize(s); ok {
			return value.Size(n), nil
		}
		return fail()
	case "size_kb":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || n > (1<<63-1)/1024 {
			return fail()
		}
		return value.Size(n * 1024), nil
	case "percent":
		if s == "-" {
			return value.Nil, nil
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(s, "%"), 10, 64)
		if err != nil || !strings.HasSuffix(s, "%") {
			return fail()
		}
		return value.Int(n), nil
	case "duration":
		if n, ok := value.ParseDuration(s); ok {
			return value.Duration(n), nil
		}
		return fail()
	case "time":
		if t, ok := value.ParseTimeOfDay(s); ok {
			return t, nil
		}
		return fail()
	}
	// str, datetime and richer hints stay text.
	return value.Str(s), nil
}

// textOf is the argv text of a bound value.
func textOf(v value.Value) string {
	switch x := v.(type) {
	case value.Str:
		return string(x)
	case value.Path:
		return string(x)
	case *value.Glob:
		return x.Pattern
	case nil:
		return ""
	}
	return value.Inline(v)
}
