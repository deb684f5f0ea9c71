package value

// Fast paths for collection methods that apply a callable to every row of a
// table. A `.field` shorthand such as `.size > 1kb` only reads fields of its
// argument, so the evaluator can answer it straight from the table's columns
// without building a Record per row. Collection methods should go through
// CallOnRow and ProjectedField rather than Env.Call when the receiver is a
// table; both fall back to the ordinary path for any other callable.

// RowCallable is implemented by callables that may be applied to a table row
// without materialising the row as a Record.
type RowCallable interface {
	Value
	// CallRow applies the callable to row i of t. handled is false when this
	// callable cannot take the fast path; the caller must then build the row
	// and use Env.Call.
	CallRow(env Env, t *Table, i int) (v Value, handled bool, err error)
}

// FieldProjector is implemented by callables whose body is exactly a read of
// one field of their argument (`.size`, `r => r.name`).
type FieldProjector interface {
	// ProjectField returns the field read, or ok false when the callable is
	// not a plain projection.
	ProjectField() (field string, ok bool)
}

// CallOnRow applies fn to row i of t, taking the row fast path when fn
// offers one.
func CallOnRow(env Env, fn Value, t *Table, i int) (Value, error) {
	if rc, ok := fn.(RowCallable); ok {
		v, handled, err := rc.CallRow(env, t, i)
		if handled || err != nil {
			return v, err
		}
	}
	return env.Call(fn, t.Row(i))
}

// ProjectedField reports the table column fn projects, when fn is a plain
// field projection and t has that column. Callers can then read
// t.Data[col] directly instead of calling fn per row.
func ProjectedField(fn Value, t *Table) (col int, ok bool) {
	fp, isFP := fn.(FieldProjector)
	if !isFP {
		return -1, false
	}
	name, ok := fp.ProjectField()
	if !ok {
		return -1, false
	}
	col = t.Col(name)
	return col, col >= 0
}
