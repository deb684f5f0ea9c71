package kernel

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// limits are resolved elision budgets.
type limits struct {
	maxBytes, maxRows, maxItems int
}

// checkElide refuses budgets that are negative or past 2^53-1; zero
// fields take defaults.
func checkElide(p *proto.Elide) error {
	if p == nil {
		return nil
	}
	for _, f := range []int{p.MaxBytes, p.MaxRows, p.MaxItems} {
		if f < 0 || f > maxSafeInt {
			return proto.NewError(proto.CodeInvalidParams, "invalid params: elide budgets must be integers from 0 to 2^53-1", nil)
		}
	}
	return nil
}

// elideLimits resolves p against the defaults; max_bytes is clamped to
// HardCap.
func elideLimits(p *proto.Elide) limits {
	l := limits{DefaultMaxBytes, DefaultMaxRows, DefaultMaxItems}
	if p != nil {
		if p.MaxBytes > 0 {
			l.maxBytes = p.MaxBytes
		}
		if p.MaxRows > 0 {
			l.maxRows = p.MaxRows
		}
		if p.MaxItems > 0 {
			l.maxItems = p.MaxItems
		}
	}
	l.maxBytes = min(l.maxBytes, HardCap)
	return l
}

// elide encodes v as a wire value, or, when it crosses a budget, as a
// `ref` naming transcript value n with a short preview and render head.
// Values nested inside an inline list, record or table are elided on their
// own (see elider), so a list of huge strings or a record holding a big
// table stays inline with refs in place of the large parts.
func elide(v value.Value, n int, l limits) (json.RawMessage, error) {
	if !overCount(v, l, false) && !leafOver(v, l.maxBytes) {
		e := &elider{base: refURI(n), l: l, leafCap: leafCap(l)}
		b, err := e.enc(make([]byte, 0, 256), v, "", 0)
		if err == nil && len(b) <= l.maxBytes {
			return b, nil
		}
	}
	return json.Marshal(elidedRef(v, refURI(n), l))
}

// leafCap is the encoded size above which a nested value becomes a ref.
func leafCap(l limits) int {
	return max(min(DefaultMaxBytesRaw, l.maxBytes/2), 64)
}

// overCount reports whether v crosses a count budget (items, rows) or, at
// the top level, the byte budget for text.
func overCount(v value.Value, l limits, nested bool) bool {
	switch x := v.(type) {
	case *value.List:
		return len(x.Items) > l.maxItems
	case *value.Record:
		return x.Len() > l.maxItems
	case *value.Table:
		return x.N > l.maxRows
	case value.Str:
		return !nested && len(x) > l.maxBytes
	case value.Bytes:
		return !nested && len(x) > l.maxBytes
	case *value.Outcome:
		// Captured output is sent as text: past the budget, encoding it
		// (up to six bytes per byte) only to drop it is the costliest
		// copy a command's answer could make.
		return !nested && outcomeText(x) > l.maxBytes
	}
	return false
}

// outcomeText is the length of the text o's wire form carries: stdout
// (unless a payload replaces it) and stderr.
func outcomeText(o *value.Outcome) int {
	n := len(o.Stderr)
	if o.Out == nil {
		n += len(o.Stdout)
	}
	return n
}

// leafOver reports, without encoding it, that a leaf's wire encoding
// certainly takes more than n bytes: text, bytes, captured output and
// error messages encode to at least their length. Such a leaf becomes a
// ref at once rather than being encoded only to be dropped.
func leafOver(v value.Value, n int) bool {
	switch x := v.(type) {
	case value.Str:
		return len(x) > n
	case value.Bytes:
		return len(x) > n
	case value.Path:
		return len(x) > n
	case *value.Outcome:
		return outcomeText(x) > n
	case *value.Error:
		return len(x.Msg)+len(x.Hint) > n
	}
	return false
}

// errOverBudget stops an encoding that already exceeds the byte budget.
var errOverBudget = errors.New("over the byte budget")

// unaddressable marks a nested value that no value.get path can name.
const unaddressable = "\x00"

// elider encodes a value with nested elision. A nested value is replaced
// by a ref when it crosses a count budget or its encoding exceeds leafCap;
// the ref's uri is the transcript value's, with "#" and the value.get path
// of the nested value appended when it has one.
type elider struct {
	base    string
	l       limits
	leafCap int
}

func (e *elider) uri(path string) string {
	if path == "" || path == unaddressable {
		return e.base
	}
	return e.base + "#" + path
}

func (e *elider) ref(dst []byte, v value.Value, path string) ([]byte, error) {
	sub := limits{maxBytes: e.leafCap * 2, maxRows: e.l.maxRows, maxItems: e.l.maxItems}
	b, err := json.Marshal(elidedRef(v, e.uri(path), sub))
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

func childPath(path, step string) string {
	if path == unaddressable {
		return unaddressable
	}
	return path + step
}

func fieldStep(k string) string {
	for i := 0; i < len(k); i++ {
		if !isIdentByte(k[i]) {
			return "." + strconv.Quote(k)
		}
	}
	if k == "" {
		return `.""`
	}
	return "." + k
}

func (e *elider) enc(dst []byte, v value.Value, path string, depth int) ([]byte, error) {
	if depth > proto.MaxWireDepth {
		return dst, proto.ErrTooDeep
	}
	if len(dst) > e.l.maxBytes {
		return dst, errOverBudget
	}
	nested := depth > 0
	if nested && (overCount(v, e.l, true) || leafOver(v, e.leafCap)) {
		return e.ref(dst, v, path)
	}
	var err error
	switch x := v.(type) {
	case *value.List:
		dst = append(dst, `{"$":"list","v":[`...)
		for i, it := range x.Items {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = e.enc(dst, it, childPath(path, "["+strconv.Itoa(i)+"]"), depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, "]}"...), nil
	case *value.Record:
		dst = append(dst, `{"$":"record","v":{`...)
		keys, vals := x.Keys(), x.Values()
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = proto.AppendString(dst, k)
			dst = append(dst, ':')
			if dst, err = e.enc(dst, vals[i], childPath(path, fieldStep(k)), depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, "}}"...), nil
	case *value.Table:
		dst = append(dst, `{"$":"table","cols":{`...)
		for c, name := range x.Cols {
			if c > 0 {
				dst = append(dst, ',')
			}
			dst = proto.AppendString(dst, name)
			dst = append(dst, ":["...)
			col := fieldStep(name)
			for r := 0; r < x.N; r++ {
				if r > 0 {
					dst = append(dst, ',')
				}
				var cell value.Value = value.Nil
				if r < len(x.Data[c]) && x.Data[c][r] != nil {
					cell = x.Data[c][r]
				}
				if dst, err = e.enc(dst, cell, childPath(path, col+"["+strconv.Itoa(r)+"]"), depth+1); err != nil {
					return dst, err
				}
			}
			dst = append(dst, ']')
		}
		dst = append(dst, `},"n":`...)
		dst = strconv.AppendInt(dst, int64(x.N), 10)
		return append(dst, '}'), nil
	}
	mark := len(dst)
	if dst, err = value.AppendWire(dst, v); err != nil {
		return dst, err
	}
	if nested && len(dst)-mark > e.leafCap {
		return e.ref(dst[:mark], v, path)
	}
	return dst, nil
}

// elidedRef builds the `ref` stand-in for v, named by uri.
func elidedRef(v value.Value, uri string, l limits) *proto.Ref {
	r := &proto.Ref{URI: uri, Of: value.TypeName(v)}
	var head value.Value
	switch x := v.(type) {
	case *value.List:
		r.N = int64(len(x.Items))
		head = value.NewList(x.Items[:min(len(x.Items), PreviewItems)])
	case *value.Record:
		r.N = int64(x.Len())
		k := min(x.Len(), PreviewItems)
		head = value.NewRecord(x.Keys()[:k], x.Values()[:k])
	case *value.Table:
		r.N = int64(x.N)
		r.Cols = tableSchema(x)
		head = sliceTable(x, 0, min(x.N, PreviewItems))
	case value.Str:
		r.N = int64(utf8.RuneCountInString(string(x)))
		head = value.Str(prefixRunes(string(x), PreviewChars))
	case value.Bytes:
		r.N = int64(len(x))
		head = value.Bytes(x[:min(len(x), PreviewChars)])
	default:
		r.N = 1
	}
	if head != nil {
		if !headOver(head, l.maxBytes/2) {
			if b, err := value.ToWire(head); err == nil && len(b) <= l.maxBytes/2 {
				if w, err := proto.DecodeWire(b); err == nil {
					r.Preview = w
				}
			}
		}
		r.RenderHead = renderBounded(head, 0, RenderHeadLines, l.maxBytes/4)
	} else {
		r.RenderHead = renderBounded(v, RenderWidth, RenderHeadLines, l.maxBytes/4)
	}
	return r
}

// headOver reports that a preview head holds a leaf too big for n bytes.
func headOver(head value.Value, n int) bool {
	switch x := head.(type) {
	case *value.List:
		for _, it := range x.Items {
			if leafOver(it, n) {
				return true
			}
		}
	case *value.Record:
		for _, it := range x.Values() {
			if leafOver(it, n) {
				return true
			}
		}
	case *value.Table:
		for _, col := range x.Data {
			for _, it := range col {
				if leafOver(it, n) {
					return true
				}
			}
		}
	}
	return leafOver(head, n)
}

// tableSchema names each column's type: the type of its non-null cells when
// they agree, "any" when they differ, "null" when all are null.
func tableSchema(t *value.Table) []proto.RefCol {
	cols := make([]proto.RefCol, len(t.Cols))
	for c, name := range t.Cols {
		typ := ""
		for _, cell := range t.Data[c] {
			if cell == nil || cell.Kind() == value.KNull {
				continue
			}
			k := value.TypeName(cell)
			if typ == "" {
				typ = k
			} else if typ != k {
				typ = "any"
				break
			}
		}
		if typ == "" {
			typ = "null"
		}
		cols[c] = proto.RefCol{Name: name, Type: typ}
	}
	return cols
}

// sliceTable returns rows [lo, hi) of t.
func sliceTable(t *value.Table, lo, hi int) *value.Table {
	data := make([][]value.Value, len(t.Cols))
	for c := range t.Cols {
		data[c] = t.Data[c][lo:hi]
	}
	return &value.Table{Cols: t.Cols, Data: data, N: hi - lo}
}

// renderRows bounds the rows or items a render shows.
const renderRows = 200

// render is the bounded human display of v: at most renderRows rows or
// items, fitted to RenderWidth columns, at most MaxRender bytes once
// encoded in a JSON string (escapes counted). Its work is in proportion to
// what it shows (see value.DisplayBounded).
func render(v value.Value) string {
	more := 0
	switch x := v.(type) {
	case *value.Table:
		if x.N > renderRows {
			v, more = sliceTable(x, 0, renderRows), x.N-renderRows
		}
	case *value.List:
		if len(x.Items) > renderRows {
			v, more = value.NewList(x.Items[:renderRows]), len(x.Items)-renderRows
		}
	case *value.Outcome:
		if len(x.Stdout) > MaxRender {
			// Only the first MaxRender bytes can show: display no more
			// of a large capture than that.
			o := *x
			o.Stdout = x.Stdout[:MaxRender+utf8.UTFMax]
			v = &o
		}
	}
	s, cut := value.DisplayBounded(v, value.TextBound{Width: RenderWidth, Lines: renderRows + 2, Bytes: MaxRender})
	switch {
	case more > 0:
		s += "\n… " + strconv.Itoa(more) + " more"
	case cut:
		s = markCut(s, renderRows+2)
	}
	return fitEncoded(s, MaxRender)
}

// renderBounded is the display of v fitted to width (0: unfitted) in at
// most lines lines and maxBytes encoded bytes, a cut marked with "…".
func renderBounded(v value.Value, width, lines, maxBytes int) string {
	s, cut := value.DisplayBounded(v, value.TextBound{Width: width, Lines: lines, Bytes: maxBytes})
	if cut {
		s = markCut(s, lines)
	}
	return fitEncoded(s, maxBytes)
}

// markCut marks a display that was cut: on a line of its own when it was
// cut at its line bound, else at the end of the text.
func markCut(s string, lines int) string {
	if strings.Count(s, "\n")+1 >= lines {
		return s + "\n…"
	}
	return s + "…"
}

// fitEncoded cuts s so that it takes at most n bytes once encoded in a
// JSON string, escapes included (a NUL byte takes six), marking a cut with
// "…".
func fitEncoded(s string, n int) string {
	if _, cut := proto.EncodedPrefix(s, n); !cut {
		return s
	}
	p, _ := proto.EncodedPrefix(s, max(n-len("…"), 0))
	return p + "…"
}

// headLines keeps the first n lines of s, at most maxBytes long once
// encoded.
func headLines(s string, n, maxBytes int) string {
	i, lines := 0, 0
	for i < len(s) && lines < n {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			i = len(s)
			break
		}
		i += j + 1
		lines++
	}
	return fitEncoded(strings.TrimSuffix(s[:i], "\n"), maxBytes)
}

// truncateUTF8 cuts s to at most n bytes on a rune boundary, marking the
// cut with an ellipsis.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:max(cut, 0)] + "…"
}

// prefixRunes returns the first n runes of s.
func prefixRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i]
}
