package value

import (
	"math"
	"reflect"
	"unicode/utf8"
)

// Equaler may be implemented by value types defined outside this package
// (closures, tasks, streams) that need a custom equality. Without it such
// values compare by identity.
type Equaler interface {
	EqualValue(other Value) bool
}

// Equal reports structural equality, the `==` operator. Ints and floats
// compare numerically; a path equals a str with the same display text;
// records are equal regardless of key order; a table equals a list of the
// same records; every other mixed pair is unequal. NaN is not equal to
// itself. Outcomes, builtins and namespaces compare by identity.
//
// Equal walks the two values with an explicit stack rather than by
// recursion, so values of any depth compare without exhausting the Go
// stack; a container whose last pair is being compared is popped first,
// so a chain of one-item lists needs no stack at all.
func Equal(a, b Value) bool {
	var buf [8]eqFrame
	stack := buf[:0]
	for {
		var f eqFrame
		if !equalShallow(a, b, &f) {
			return false
		}
		if f.kind != 0 {
			stack = append(stack, f)
		}
		for {
			if len(stack) == 0 {
				return true
			}
			top := &stack[len(stack)-1]
			var more, fail bool
			a, b, more, fail = top.next()
			if fail {
				return false
			}
			if more {
				if top.exhausted() {
					stack = stack[:len(stack)-1]
				}
				break
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// eqFrame is a pair of containers whose children Equal still has to
// compare, with its position among them.
type eqFrame struct {
	kind   byte // 0: none; 's' slices; 'r' records; 't' tables; 'l' list against table
	xs, ys []Value
	xr, yr *Record
	xt, yt *Table
	cols   []int // tables: y's column for each of x's, nil when the same
	i, j   int
}

// equalShallow compares a and b where that needs no children. For a pair
// of containers whose shapes agree it fills f with the children still to
// compare and reports true.
func equalShallow(a, b Value, f *eqFrame) bool {
	if a == nil || b == nil {
		return isNull(a) && isNull(b)
	}
	switch x := a.(type) {
	case Int:
		switch y := b.(type) {
		case Int:
			return x == y
		case Float:
			return cmpIntFloat(int64(x), float64(y)) == 0 && !math.IsNaN(float64(y))
		}
		return false
	case Float:
		switch y := b.(type) {
		case Float:
			return x == y
		case Int:
			return cmpIntFloat(int64(y), float64(x)) == 0 && !math.IsNaN(float64(x))
		}
		return false
	case Str:
		switch y := b.(type) {
		case Str:
			return x == y
		case Path:
			return string(x) == lossy(string(y))
		}
		return false
	case Path:
		switch y := b.(type) {
		case Path:
			return x == y
		case Str:
			return lossy(string(x)) == string(y)
		}
		return false
	case Null:
		return isNull(b)
	case Bool:
		y, ok := b.(Bool)
		return ok && x == y
	case Bytes:
		y, ok := b.(Bytes)
		return ok && x == y
	case Size:
		y, ok := b.(Size)
		return ok && x == y
	case Duration:
		y, ok := b.(Duration)
		return ok && x == y
	case Time:
		y, ok := b.(Time)
		return ok && x == y
	case DateTime:
		y, ok := b.(DateTime)
		return ok && x.T.Equal(y.T)
	case Range:
		y, ok := b.(Range)
		return ok && x == y
	case *Glob:
		y, ok := b.(*Glob)
		return ok && (x == y || x.Pattern == y.Pattern)
	case *Regex:
		y, ok := b.(*Regex)
		return ok && (x == y || x.Source == y.Source)
	case *List:
		switch y := b.(type) {
		case *List:
			if len(x.Items) != len(y.Items) {
				return false
			}
			if len(x.Items) > 0 {
				*f = eqFrame{kind: 's', xs: x.Items, ys: y.Items}
			}
			return true
		case *Table:
			return listTableFrame(x, y, f)
		}
		return false
	case *Table:
		switch y := b.(type) {
		case *Table:
			return tableFrame(x, y, f)
		case *List:
			return listTableFrame(y, x, f)
		}
		return false
	case *Record:
		y, ok := b.(*Record)
		if !ok || len(x.keys) != len(y.keys) {
			return false
		}
		if x != y && len(x.keys) > 0 {
			*f = eqFrame{kind: 'r', xr: x, yr: y}
		}
		return true
	case *Error:
		y, ok := b.(*Error)
		return ok && (x == y || (x.Code == y.Code && x.Msg == y.Msg))
	case *Secret:
		y, ok := b.(*Secret)
		return ok && (x == y || (x.Name == y.Name && x.value == y.value))
	}
	if e, ok := a.(Equaler); ok {
		return e.EqualValue(b)
	}
	// Identity for everything else (outcomes, builtins, namespaces, and
	// foreign handle types), guarding against uncomparable dynamic types.
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}

// tableFrame matches the columns of two tables, by position or by name.
func tableFrame(x, y *Table, f *eqFrame) bool {
	if x == y {
		return true
	}
	if x.N != y.N || len(x.Cols) != len(y.Cols) {
		return false
	}
	var cols []int // nil while every column sits at the same position
	for ci, c := range x.Cols {
		yc := ci
		if y.Cols[ci] != c {
			if yc = y.Col(c); yc < 0 {
				return false
			}
			if cols == nil {
				cols = make([]int, len(x.Cols))
				for i := range ci {
					cols[i] = i
				}
			}
		}
		if cols != nil {
			cols[ci] = yc
		}
		if len(x.Data[ci]) != len(y.Data[yc]) {
			return false
		}
	}
	if len(x.Cols) > 0 {
		*f = eqFrame{kind: 't', xt: x, yt: y, cols: cols}
	}
	return true
}

// listTableFrame checks that a list has as many items as a table has
// rows; its items are matched against the rows as Equal goes.
func listTableFrame(l *List, t *Table, f *eqFrame) bool {
	if len(l.Items) != t.N {
		return false
	}
	if t.N > 0 {
		*f = eqFrame{kind: 'l', xs: l.Items, yt: t}
	}
	return true
}

// next returns the frame's next pair of children and advances past it;
// more is false when none is left, and fail reports a mismatch found
// without comparing children (a missing field or column, a list item that
// is not a record with the table's columns).
func (f *eqFrame) next() (a, b Value, more, fail bool) {
	switch f.kind {
	case 's':
		if f.i == len(f.xs) {
			return nil, nil, false, false
		}
		f.i++
		return f.xs[f.i-1], f.ys[f.i-1], true, false
	case 'r':
		if f.i == len(f.xr.keys) {
			return nil, nil, false, false
		}
		i := f.i
		f.i++
		k := f.xr.keys[i]
		if f.yr.keys[i] == k { // same position holds the same key
			return f.xr.vals[i], f.yr.vals[i], true, false
		}
		v, ok := f.yr.Get(k)
		if !ok {
			return nil, nil, false, true
		}
		return f.xr.vals[i], v, true, false
	case 't':
		f.skipEmptyColumns()
		if f.i == len(f.xt.Cols) {
			return nil, nil, false, false
		}
		c, r := f.i, f.j
		f.j++
		f.skipEmptyColumns()
		yc := c
		if f.cols != nil {
			yc = f.cols[c]
		}
		return f.xt.Data[c][r], f.yt.Data[yc][r], true, false
	case 'l':
		// Row i is compared field by field: item i's field j against the
		// table's cell in the column of the same name.
		if f.i == len(f.xs) {
			return nil, nil, false, false
		}
		rec, ok := f.xs[f.i].(*Record)
		if !ok || len(rec.keys) != len(f.yt.Cols) {
			return nil, nil, false, true
		}
		if len(rec.keys) == 0 {
			f.i++
			return Nil, Nil, true, false
		}
		row, j := f.i, f.j
		if f.j++; f.j == len(rec.keys) {
			f.i, f.j = f.i+1, 0
		}
		k := rec.keys[j]
		c := j
		if f.yt.Cols[j] != k {
			if c = f.yt.Col(k); c < 0 {
				return nil, nil, false, true
			}
		}
		return rec.vals[j], f.yt.Data[c][row], true, false
	}
	return nil, nil, false, false
}

// skipEmptyColumns moves a table frame past the columns it has finished.
func (f *eqFrame) skipEmptyColumns() {
	for f.i < len(f.xt.Cols) && f.j >= len(f.xt.Data[f.i]) {
		f.i, f.j = f.i+1, 0
	}
}

// exhausted reports that next has no pair left to return.
func (f *eqFrame) exhausted() bool {
	switch f.kind {
	case 's', 'l':
		return f.i == len(f.xs)
	case 'r':
		return f.i == len(f.xr.keys)
	case 't':
		return f.i == len(f.xt.Cols)
	}
	return true
}

func isNull(v Value) bool {
	if v == nil {
		return true
	}
	_, ok := v.(Null)
	return ok
}

// lossy returns s with invalid UTF-8 replaced by U+FFFD, as path display
// does.
func lossy(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		b = utf8.AppendRune(b, r)
		s = s[n:]
	}
	return string(b)
}
