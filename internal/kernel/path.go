package kernel

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

// step is one projection of a value.get path: a field, an index, or a
// half-open range.
type step struct {
	field  string
	index  int
	lo, hi int
	kind   byte // 'f', 'i' or 'r'
}

// maxPathSteps bounds a path's length.
const maxPathSteps = 64

// parsePath reads a path such as `.rows[0].name`, `[2..5]` or `name`:
// dot fields (identifiers or double-quoted strings), non-negative [n], and
// [a..b].
func parsePath(p string) ([]step, error) {
	var steps []step
	i := 0
	first := true
	for i < len(p) {
		if len(steps) >= maxPathSteps {
			return nil, fmt.Errorf("path has more than %d steps", maxPathSteps)
		}
		switch c := p[i]; {
		case c == '.' || first && isIdentByte(c) || first && c == '"':
			if c == '.' {
				i++
			}
			name, n, err := pathField(p[i:])
			if err != nil {
				return nil, err
			}
			steps = append(steps, step{kind: 'f', field: name})
			i += n
		case c == '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [ at offset %d", i)
			}
			st, err := pathIndex(p[i+1 : i+end])
			if err != nil {
				return nil, err
			}
			steps = append(steps, st)
			i += end + 1
		default:
			return nil, fmt.Errorf("unexpected %q at offset %d", c, i)
		}
		first = false
	}
	return steps, nil
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// pathField reads a field name at the start of s, returning it and the
// bytes consumed.
func pathField(s string) (string, int, error) {
	if strings.HasPrefix(s, `"`) {
		for j := 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '"':
				name, err := strconv.Unquote(s[:j+1])
				if err != nil {
					return "", 0, fmt.Errorf("bad quoted field %s", s[:j+1])
				}
				return name, j + 1, nil
			}
		}
		return "", 0, fmt.Errorf("unclosed quoted field")
	}
	j := 0
	for j < len(s) && isIdentByte(s[j]) {
		j++
	}
	if j == 0 {
		return "", 0, fmt.Errorf("expected a field name")
	}
	return s[:j], j, nil
}

// pathIndex reads the inside of [n] or [a..b].
func pathIndex(s string) (step, error) {
	num := func(t string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(t))
		if err != nil || n < 0 {
			return 0, fmt.Errorf("index %q is not a non-negative integer", t)
		}
		return n, nil
	}
	if a, b, ok := strings.Cut(s, ".."); ok {
		lo, err := num(a)
		if err != nil {
			return step{}, err
		}
		hi, err := num(b)
		if err != nil {
			return step{}, err
		}
		return step{kind: 'r', lo: lo, hi: hi}, nil
	}
	n, err := num(s)
	if err != nil {
		return step{}, err
	}
	return step{kind: 'i', index: n}, nil
}

// project applies steps to v.
func project(v value.Value, steps []step) (value.Value, error) {
	for _, st := range steps {
		var err error
		if v, err = apply(v, st); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// apply projects one step. An outcome without a field of that name is
// looked through to its output, iteratively (an outcome's output may be
// another outcome).
func apply(v value.Value, st step) (value.Value, error) {
	for {
		o, ok := v.(*value.Outcome)
		if !ok {
			break
		}
		if st.kind == 'f' {
			if f, ok := outcomeField(o, st.field); ok {
				return f, nil
			}
		}
		v = outcomeOut(o)
	}
	switch x := v.(type) {
	case *value.Record:
		if st.kind == 'f' {
			if f, ok := x.Get(st.field); ok {
				return f, nil
			}
			return nil, fmt.Errorf("record has no field %q", st.field)
		}
	case *value.List:
		switch st.kind {
		case 'i':
			if st.index >= len(x.Items) {
				return nil, fmt.Errorf("index %d out of range for a list of %d", st.index, len(x.Items))
			}
			return x.Items[st.index], nil
		case 'r':
			lo, hi := clampRange(st.lo, st.hi, len(x.Items))
			return value.NewList(x.Items[lo:hi]), nil
		}
	case *value.Table:
		switch st.kind {
		case 'f':
			if st.field == "rows" && x.Col("rows") < 0 {
				rows := make([]value.Value, x.N)
				for i := range rows {
					rows[i] = x.Row(i)
				}
				return value.NewList(rows), nil
			}
			if c := x.Col(st.field); c >= 0 {
				return value.NewList(x.Data[c]), nil
			}
			return nil, fmt.Errorf("table has no column %q", st.field)
		case 'i':
			if st.index >= x.N {
				return nil, fmt.Errorf("row %d out of range for a table of %d", st.index, x.N)
			}
			return x.Row(st.index), nil
		case 'r':
			lo, hi := clampRange(st.lo, st.hi, x.N)
			return sliceTable(x, lo, hi), nil
		}
	case *value.Error:
		if st.kind == 'f' {
			switch st.field {
			case "code":
				return value.Str(x.Code), nil
			case "msg", "message":
				return value.Str(x.Msg), nil
			case "hint":
				return value.Str(x.Hint), nil
			}
			return nil, fmt.Errorf("error has no field %q", st.field)
		}
	}
	what := map[byte]string{'f': "field ." + st.field, 'i': "an index", 'r': "a range"}[st.kind]
	return nil, fmt.Errorf("a %s value has no %s", value.TypeName(v), what)
}

// outcomeField returns the named structural field of an outcome.
func outcomeField(o *value.Outcome, name string) (value.Value, bool) {
	switch name {
	case "status":
		if o.Status == nil {
			return value.Nil, true
		}
		return value.Int(*o.Status), true
	case "ok":
		return value.Bool(o.Ok()), true
	case "signal":
		if o.Signal == "" {
			return value.Nil, true
		}
		return value.Str(o.Signal), true
	case "out":
		return outcomeOut(o), true
	case "err":
		return value.Str(string(o.Stderr)), true
	case "dur_ns":
		return value.Int(o.Dur.Nanoseconds()), true
	case "pid":
		if o.Pid == 0 {
			return value.Nil, true
		}
		return value.Int(o.Pid), true
	case "cmd":
		return value.Str(o.Cmd), true
	}
	return nil, false
}

// outcomeOut is an outcome's structured output, or its stdout as text.
func outcomeOut(o *value.Outcome) value.Value {
	if o.Out != nil {
		return o.Out
	}
	return value.Str(string(o.Stdout))
}

// clampRange clamps the half-open range [lo, hi) to [0, n].
func clampRange(lo, hi, n int) (int, int) {
	lo, hi = min(max(lo, 0), n), min(max(hi, 0), n)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}
