package eval

import (
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/namespaces"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// evalField evaluates `x.name` and `x?.name`.
func (t *thread) evalField(n *syntax.Field, sc *scope) (value.Value, error) {
	if v, ok := n.X.(*syntax.Var); ok && v.Name == "env" && sc.lookup("env") == nil {
		if s, ok := t.getenv(n.Name); ok {
			return value.Str(s), nil
		}
		return value.Nil, nil
	}
	recv, err := t.eval(n.X, sc)
	if err != nil {
		return nil, err
	}
	if n.Optional && recv.Kind() == value.KNull {
		return value.Nil, nil
	}
	v, err := t.field(recv, n.Name)
	if err != nil && int(n.Span.End)-len(n.Name) > int(n.Span.Start) {
		// The access's own error (no such field, member or method)
		// points at the name, which ends the access.
		err = withSpan(err, syntax.Span{Start: n.Span.End - int32(len(n.Name)), End: n.Span.End})
	}
	return v, err
}

// field reads a field: records strictly, namespaces by member, outcomes
// and errors by their own fields, everything else through a zero-argument
// method of that name.
func (t *thread) field(recv value.Value, name string) (value.Value, error) {
	switch r := recv.(type) {
	case *rowView:
		if c := r.t.Col(name); c >= 0 {
			return r.t.Data[c][r.i], nil
		}
		return nil, missingField(r.t.Row(r.i), name)
	case *value.Record:
		if v, ok := r.Get(name); ok {
			return v, nil
		}
		return nil, missingField(r, name)
	case *value.Namespace:
		if r == t.in.config {
			// config.KEY reads the snapshot's top-level KEY, null when
			// absent, even for a key named like a member (config.all).
			return namespaces.ConfigField(r, name), nil
		}
		m, ok := r.Members[name]
		if !ok {
			return nil, errorf(codeField, "%s has no member `%s`", r.Name, name)
		}
		if _, fn := m.(*value.Builtin); fn {
			return nil, errorf(codeField, "`%s.%s` is a function; call it: %s.%s()", r.Name, name, r.Name, name)
		}
		return m, nil
	case *value.Outcome:
		if v, ok, err := t.outcomeField(r, name); ok || err != nil {
			return v, err
		}
		out, err := t.outcomeOut(r)
		if err != nil {
			return nil, err
		}
		return t.field(out, name)
	case *value.Error:
		if v, ok := errorField(r, name); ok {
			return v, nil
		}
	case *Task:
		if v, ok := taskField(r, name); ok {
			return v, nil
		}
	case value.Null:
		return nil, errorf(codeField, "null has no field `%s`", name).WithHint("use `?.` to read a field of a value that may be null")
	}
	if v, ok, err := t.callKnownMethod(recv, name, value.Args{}); ok {
		return v, err
	}
	return nil, errorf(codeField, "%s has no field or method `%s`", value.TypeName(recv), name)
}

func missingField(r *value.Record, name string) *value.Error {
	e := errorf(codeField, "record has no field `%s`", name)
	if _, isMethod := value.LookupMethod(value.KRecord, name); isMethod {
		return e.WithHint("`" + name + "` is a method on records; call it with parentheses: ." + name + "()")
	}
	if keys := r.Keys(); len(keys) > 0 {
		if s := suggest(name, keys); s != "" {
			return e.WithHint("did you mean `" + s + "`?")
		}
		return e.WithHint("available fields: " + strings.Join(keys, ", "))
	}
	return e
}

func errorField(e *value.Error, name string) (value.Value, bool) {
	switch name {
	case "code":
		return value.Str(e.Code), true
	case "msg", "message":
		return value.Str(e.Msg), true
	case "hint":
		if e.Hint == "" {
			return value.Nil, true
		}
		return value.Str(e.Hint), true
	case "status":
		if e.Status == nil {
			return value.Nil, true
		}
		return e.Status, true
	case "stderr":
		if e.Stderr == nil {
			return value.Nil, true
		}
		return e.Stderr, true
	}
	return nil, false
}

// evalIndex evaluates `x[i]`.
func (t *thread) evalIndex(n *syntax.Index, sc *scope) (value.Value, error) {
	recv, err := t.eval(n.X, sc)
	if err != nil {
		return nil, err
	}
	idx, err := t.eval(n.Index, sc)
	if err != nil {
		return nil, err
	}
	return index(recv, idx)
}

func index(recv, idx value.Value) (value.Value, error) {
	if _, isRange := idx.(value.Range); isRange {
		return nil, errorf(codeType, "cannot index %s by a range", value.TypeName(recv)).WithHint("use .skip(n).take(m) to slice")
	}
	switch r := recv.(type) {
	case *value.List:
		i, err := intIndex(idx, len(r.Items), "list")
		if err != nil {
			return nil, err
		}
		return r.Items[i], nil
	case value.Str:
		s := string(r)
		n := utf8.RuneCountInString(s)
		i, err := intIndex(idx, n, "string")
		if err != nil {
			return nil, err
		}
		for j, c := range s {
			if i == 0 {
				return value.Str(s[j : j+utf8.RuneLen(c)]), nil
			}
			i--
		}
	case *value.Record:
		k, ok := idx.(value.Str)
		if !ok {
			return nil, errorf(codeType, "record index must be str, got %s", value.TypeName(idx))
		}
		if v, ok := r.Get(string(k)); ok {
			return v, nil
		}
		return nil, missingField(r, string(k))
	case *value.Table:
		return nil, errorf(codeType, "a table cannot be indexed by position").WithHint("use .first(), .get or .where to pick rows")
	case *value.Outcome:
		return nil, errorf(codeType, "an outcome cannot be indexed").WithHint("index its payload: (cmd).out[...]")
	}
	return nil, errorf(codeType, "cannot index %s", value.TypeName(recv))
}

func intIndex(idx value.Value, n int, what string) (int, error) {
	iv, ok := idx.(value.Int)
	if !ok {
		return 0, errorf(codeType, "%s index must be int, got %s", what, value.TypeName(idx))
	}
	i := int64(iv)
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		return 0, errorf(codeIndex, "index %d out of range for %s of length %d", int64(iv), what, n)
	}
	return int(i), nil
}
