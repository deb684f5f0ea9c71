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
func Equal(a, b Value) bool {
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
			return equalSlices(x.Items, y.Items)
		case *Table:
			return equalListTable(x, y)
		}
		return false
	case *Table:
		switch y := b.(type) {
		case *Table:
			return equalTables(x, y)
		case *List:
			return equalListTable(y, x)
		}
		return false
	case *Record:
		y, ok := b.(*Record)
		return ok && equalRecords(x, y)
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

func isNull(v Value) bool {
	if v == nil {
		return true
	}
	_, ok := v.(Null)
	return ok
}

func equalSlices(a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func equalRecords(x, y *Record) bool {
	if x == y {
		return true
	}
	if len(x.keys) != len(y.keys) {
		return false
	}
	for i, k := range x.keys {
		// Fast path: same position holds the same key.
		if y.keys[i] == k {
			if !Equal(x.vals[i], y.vals[i]) {
				return false
			}
			continue
		}
		v, ok := y.Get(k)
		if !ok || !Equal(x.vals[i], v) {
			return false
		}
	}
	return true
}

func equalTables(x, y *Table) bool {
	if x == y {
		return true
	}
	if x.N != y.N || len(x.Cols) != len(y.Cols) {
		return false
	}
	for ci, c := range x.Cols {
		yc := ci
		if ci >= len(y.Cols) || y.Cols[ci] != c {
			if yc = y.Col(c); yc < 0 {
				return false
			}
		}
		if !equalSlices(x.Data[ci], y.Data[yc]) {
			return false
		}
	}
	return true
}

func equalListTable(l *List, t *Table) bool {
	if len(l.Items) != t.N {
		return false
	}
	for i, it := range l.Items {
		r, ok := it.(*Record)
		if !ok || !equalRecords(r, t.Row(i)) {
			return false
		}
	}
	return true
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
