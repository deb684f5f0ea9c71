package kernel

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// elideParams are a request's elision budgets; zero fields take defaults.
type elideParams struct {
	MaxBytes *int `json:"max_bytes"`
	MaxRows  *int `json:"max_rows"`
	MaxItems *int `json:"max_items"`
}

// limits are resolved elision budgets.
type limits struct {
	maxBytes, maxRows, maxItems int
}

func (p *elideParams) check() error {
	if p == nil {
		return nil
	}
	for _, f := range []*int{p.MaxBytes, p.MaxRows, p.MaxItems} {
		if f != nil && *f < 0 {
			return proto.NewError(proto.CodeInvalidParams, "invalid params: elide budgets must not be negative", nil)
		}
	}
	return nil
}

// limits resolves p against the defaults; max_bytes is clamped to HardCap.
func (p *elideParams) limits() limits {
	l := limits{DefaultMaxBytes, DefaultMaxRows, DefaultMaxItems}
	if p != nil {
		if p.MaxBytes != nil && *p.MaxBytes > 0 {
			l.maxBytes = *p.MaxBytes
		}
		if p.MaxRows != nil && *p.MaxRows > 0 {
			l.maxRows = *p.MaxRows
		}
		if p.MaxItems != nil && *p.MaxItems > 0 {
			l.maxItems = *p.MaxItems
		}
	}
	l.maxBytes = min(l.maxBytes, HardCap)
	return l
}

// elide encodes v as a wire value, or, when it crosses a budget, as a
// `ref` naming transcript value n with a short preview and render head.
func elide(v value.Value, n int, l limits) (json.RawMessage, error) {
	over := false
	switch x := v.(type) {
	case *value.List:
		over = len(x.Items) > l.maxItems
	case *value.Record:
		over = x.Len() > l.maxItems
	case *value.Table:
		over = x.N > l.maxRows
	case value.Str:
		over = len(x) > l.maxBytes
	case value.Bytes:
		over = len(x) > l.maxBytes
	}
	if !over {
		b, err := value.ToWire(v)
		if err == nil && len(b) <= l.maxBytes {
			return b, nil
		}
	}
	return json.Marshal(elidedRef(v, n, l))
}

// elidedRef builds the `ref` stand-in for v.
func elidedRef(v value.Value, n int, l limits) *proto.Ref {
	r := &proto.Ref{URI: refURI(n), Of: value.TypeName(v)}
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
		if b, err := value.ToWire(head); err == nil && len(b) <= l.maxBytes/2 {
			if w, err := proto.DecodeWire(b); err == nil {
				r.Preview = w
			}
		}
		r.RenderHead = headLines(value.Display(head), RenderHeadLines, l.maxBytes/4)
	} else {
		r.RenderHead = headLines(render(v), RenderHeadLines, l.maxBytes/4)
	}
	return r
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

// render is the bounded human display of v.
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
	}
	s := value.Display(v)
	if more > 0 {
		s += "\n… " + strconv.Itoa(more) + " more"
	}
	return truncateUTF8(s, MaxRender)
}

// headLines keeps the first n lines of s, at most maxBytes long.
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
	return truncateUTF8(strings.TrimSuffix(s[:i], "\n"), maxBytes)
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
