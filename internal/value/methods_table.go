package value

import "strings"

// Table-specific methods and the columnar helpers behind the row-selecting
// collection methods. The evaluator may call the exported helpers directly
// when it can compute a predicate or key straight from a column (for
// example a `.size > 1mb` lambda), skipping per-row records entirely.

func registerTableMethods() {
	addMethod(KTable, "select", tableSelect)
	addMethod(KTable, "columns", tableColumns)
	addMethod(KList, "select", listSelect)
}

// TableGather returns a new table holding rows idx of t, in that order. It
// builds each column directly, never a per-row record.
func TableGather(t *Table, idx []int) *Table {
	out := &Table{Cols: t.Cols, Data: make([][]Value, len(t.Data)), N: len(idx)}
	for c, col := range t.Data {
		nc := make([]Value, len(idx))
		for j, i := range idx {
			nc[j] = col[i]
		}
		out.Data[c] = nc
	}
	return out
}

// TableWhereIndexes returns the indexes of the rows of t for which pred
// returns true (or a successful outcome), calling pred once per row in
// order. Pair it with TableGather to build where's result.
func TableWhereIndexes(env Env, t *Table, pred Value) ([]int, error) {
	return mSelect(env, "where", &mSeq{tab: t, rows: mRowPool{t: t}, n: t.N}, pred)
}

// TableSortBy returns t's rows ordered stably by keys (one key per row), as
// sort_by does.
func TableSortBy(t *Table, keys []Value) (*Table, error) {
	if len(keys) != t.N {
		return nil, Errorf(CodeArg, "TableSortBy: %d keys for %d rows", len(keys), t.N)
	}
	perm, err := SortPermutation(keys)
	if err != nil {
		return nil, err
	}
	return TableGather(t, perm), nil
}

// mColumnNames reads the column-name arguments of select.
func mColumnNames(a Args) ([]string, error) {
	if err := mArity("select", a, 1, maxInt, "at least one column name"); err != nil {
		return nil, err
	}
	names := make([]string, len(a.Pos))
	for i, v := range a.Pos {
		var err error
		if names[i], err = mStr("select", "a column name", v); err != nil {
			return nil, err
		}
	}
	return names, nil
}

func tableSelect(_ Env, recv Value, a Args) (Value, error) {
	t := recv.(*Table)
	names, err := mColumnNames(a)
	if err != nil {
		return nil, err
	}
	out := &Table{Cols: make([]string, 0, len(names)), N: t.N}
	for _, n := range names {
		c := t.Col(n)
		if c < 0 {
			return nil, Errorf(CodeField, "table has no column `%s`", n).
				WithHint("columns: " + strings.Join(t.Cols, ", "))
		}
		if mIndexOf(out.Cols, n) >= 0 {
			continue
		}
		out.Cols = append(out.Cols, n)
		out.Data = append(out.Data, t.Data[c])
	}
	return out, nil
}

func tableColumns(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("columns", a); err != nil {
		return nil, err
	}
	t := recv.(*Table)
	out := make([]Value, len(t.Cols))
	for i, c := range t.Cols {
		out[i] = Str(c)
	}
	return NewList(out), nil
}

// listSelect projects every record of a list onto the named fields.
func listSelect(_ Env, recv Value, a Args) (Value, error) {
	names, err := mColumnNames(a)
	if err != nil {
		return nil, err
	}
	items := recv.(*List).Items
	out := make([]Value, len(items))
	for i, it := range items {
		r, ok := it.(*Record)
		if !ok {
			return nil, mTypeErr("select needs records, item %d is %s", i, TypeName(it))
		}
		keys := make([]string, 0, len(names))
		vals := make([]Value, 0, len(names))
		for _, n := range names {
			v, ok := r.Get(n)
			if !ok {
				return nil, Errorf(CodeField, "record %d has no field `%s`", i, n)
			}
			keys, vals = append(keys, n), append(vals, v)
		}
		out[i] = NewRecord(keys, vals)
	}
	return NewList(out), nil
}

func mIndexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
