package value

import (
	"math"
	"math/bits"
	"strings"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/syntax"
)

// BinaryOp applies an arithmetic (+ - * / %), comparison (== != < <= > >=)
// or membership (in) operator. The short-circuit operators && || ?? belong
// to the evaluator. Failures are *Error values with codes type_error,
// overflow or div_zero.
func BinaryOp(op syntax.BinOp, a, b Value) (Value, error) {
	switch op {
	case syntax.OpAdd:
		return add(a, b)
	case syntax.OpSub:
		return sub(a, b)
	case syntax.OpMul:
		return mul(a, b)
	case syntax.OpDiv:
		return div(a, b)
	case syntax.OpRem:
		return rem(a, b)
	case syntax.OpEq:
		return Bool(Equal(a, b)), nil
	case syntax.OpNe:
		return Bool(!Equal(a, b)), nil
	case syntax.OpLt, syntax.OpLe, syntax.OpGt, syntax.OpGe:
		c, err := Compare(a, b)
		if err != nil {
			return nil, err
		}
		switch op {
		case syntax.OpLt:
			return Bool(c < 0), nil
		case syntax.OpLe:
			return Bool(c <= 0), nil
		case syntax.OpGt:
			return Bool(c > 0), nil
		}
		return Bool(c >= 0), nil
	case syntax.OpIn:
		ok, err := Contains(b, a)
		if err != nil {
			return nil, err
		}
		return Bool(ok), nil
	}
	return nil, Errorf(CodeType, "operator %s is not a value operator", op.String())
}

// Negate implements unary minus on int, float and duration.
func Negate(v Value) (Value, error) {
	switch x := v.(type) {
	case Int:
		if x == math.MinInt64 {
			return nil, Errorf(CodeOverflow, "integer overflow in -%d", int64(x))
		}
		return -x, nil
	case Float:
		return -x, nil
	case Duration:
		if x == math.MinInt64 {
			return nil, Errorf(CodeOverflow, "duration overflow in negation")
		}
		return -x, nil
	case Size:
		return nil, Errorf(CodeType, "cannot negate a size: sizes are never negative")
	}
	return nil, Errorf(CodeType, "cannot negate %s", TypeName(v))
}

// Contains implements `needle in hay`: structural membership in a list or
// table, substring in a string, key in a record, integer in a range.
func Contains(hay, needle Value) (bool, error) {
	switch h := hay.(type) {
	case *List:
		for _, it := range h.Items {
			if Equal(it, needle) {
				return true, nil
			}
		}
		return false, nil
	case *Table:
		rec, ok := needle.(*Record)
		if !ok {
			return false, nil
		}
		for i := 0; i < h.N; i++ {
			if Equal(h.Row(i), rec) {
				return true, nil
			}
		}
		return false, nil
	case Str:
		s, ok := needle.(Str)
		if !ok {
			return false, Errorf(CodeType, "`in` on a str needs a str needle, got %s", TypeName(needle))
		}
		return strings.Contains(string(h), string(s)), nil
	case *Record:
		s, ok := needle.(Str)
		if !ok {
			return false, Errorf(CodeType, "`in` on a record needs a str key, got %s", TypeName(needle))
		}
		_, found := h.Get(string(s))
		return found, nil
	case Range:
		switch n := needle.(type) {
		case Int:
			return rangeHas(h, int64(n)), nil
		case Float:
			f := float64(n)
			if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
				return false, nil
			}
			return rangeHas(h, int64(f)), nil
		}
		return false, Errorf(CodeType, "`in` on a range needs a number, got %s", TypeName(needle))
	}
	return false, Errorf(CodeType, "cannot test membership in %s", TypeName(hay))
}

func rangeHas(r Range, n int64) bool {
	if r.Inclusive {
		return n >= r.Lo && n <= r.Hi
	}
	return n >= r.Lo && n < r.Hi
}

// Boxed small ints: putting an Int above 255 or below 0 into a Value
// allocates (the runtime boxes 0..255 from a static table of its own), so
// arithmetic results in this range come from a table instead, built the
// first time one is needed rather than at every start (2,560 boxes).
const (
	smallIntMin = -512
	smallIntMax = 2048 // exclusive
)

var smallInts = sync.OnceValue(func() *[smallIntMax - smallIntMin]Value {
	t := new([smallIntMax - smallIntMin]Value)
	for i := range t {
		t[i] = Int(i + smallIntMin)
	}
	return t
})

// IntValue boxes n as a Value, without allocating for small magnitudes.
func IntValue(n int64) Value {
	if uint64(n) < 256 {
		return Int(n) // boxed without allocating by the runtime
	}
	if n >= smallIntMin && n < smallIntMax {
		return smallInts()[n-smallIntMin]
	}
	return Int(n)
}

func opError(op string, a, b Value) *Error {
	e := Errorf(CodeType, "cannot apply %s to %s and %s", op, TypeName(a), TypeName(b))
	if op == "+" && (a.Kind() == KStr || b.Kind() == KStr) {
		e.Hint = `use interpolation ("{x}") or .str() to build text`
	}
	return e
}

func add(a, b Value) (Value, error) {
	switch x := a.(type) {
	case Int:
		switch y := b.(type) {
		case Int:
			if r, ok := addInt64(int64(x), int64(y)); ok {
				return IntValue(r), nil
			}
			return nil, Errorf(CodeOverflow, "integer overflow in %d + %d", int64(x), int64(y))
		case Float:
			return Float(float64(x) + float64(y)), nil
		}
	case Float:
		switch y := b.(type) {
		case Int:
			return Float(float64(x) + float64(y)), nil
		case Float:
			return x + y, nil
		}
	case Str:
		if y, ok := b.(Str); ok {
			if err := CheckStrLen(len(x) + len(y)); err != nil {
				return nil, err
			}
			return x + y, nil
		}
	case Bytes:
		if y, ok := b.(Bytes); ok {
			if err := CheckStrLen(len(x) + len(y)); err != nil {
				return nil, err
			}
			return x + y, nil
		}
	case *List:
		switch y := b.(type) {
		case *List:
			if err := CheckItems(len(x.Items) + len(y.Items)); err != nil {
				return nil, err
			}
			return concatLists(x.Items, y.Items), nil
		case *Table:
			if err := CheckItems(len(x.Items) + y.N); err != nil {
				return nil, err
			}
			return concatLists(x.Items, tableRows(y)), nil
		}
	case *Table:
		switch y := b.(type) {
		case *List:
			if err := CheckItems(x.N + len(y.Items)); err != nil {
				return nil, err
			}
			return concatLists(tableRows(x), y.Items), nil
		case *Table:
			if err := CheckItems(x.N + y.N); err != nil {
				return nil, err
			}
			if t, ok := concatTables(x, y); ok {
				return t, nil
			}
			return concatLists(tableRows(x), tableRows(y)), nil
		}
	case Size:
		if y, ok := b.(Size); ok {
			if r, ok := addInt64(int64(x), int64(y)); ok {
				return Size(r), nil
			}
			return nil, Errorf(CodeOverflow, "size overflow in %s + %s", FormatSize(int64(x)), FormatSize(int64(y)))
		}
	case Duration:
		switch y := b.(type) {
		case Duration:
			if r, ok := addInt64(int64(x), int64(y)); ok {
				return Duration(r), nil
			}
			return nil, Errorf(CodeOverflow, "duration overflow in %s + %s", FormatDuration(int64(x)), FormatDuration(int64(y)))
		case DateTime:
			return shiftDateTime(y, int64(x))
		}
	case DateTime:
		if y, ok := b.(Duration); ok {
			return shiftDateTime(x, int64(y))
		}
	}
	return nil, opError("+", a, b)
}

func sub(a, b Value) (Value, error) {
	switch x := a.(type) {
	case Int:
		switch y := b.(type) {
		case Int:
			if r, ok := subInt64(int64(x), int64(y)); ok {
				return IntValue(r), nil
			}
			return nil, Errorf(CodeOverflow, "integer overflow in %d - %d", int64(x), int64(y))
		case Float:
			return Float(float64(x) - float64(y)), nil
		}
	case Float:
		switch y := b.(type) {
		case Int:
			return Float(float64(x) - float64(y)), nil
		case Float:
			return x - y, nil
		}
	case Size:
		if y, ok := b.(Size); ok {
			if y > x {
				return nil, Errorf(CodeType, "size cannot be negative: %s - %s", FormatSize(int64(x)), FormatSize(int64(y)))
			}
			return x - y, nil
		}
	case Duration:
		if y, ok := b.(Duration); ok {
			if r, ok := subInt64(int64(x), int64(y)); ok {
				return Duration(r), nil
			}
			return nil, Errorf(CodeOverflow, "duration overflow in %s - %s", FormatDuration(int64(x)), FormatDuration(int64(y)))
		}
	case DateTime:
		switch y := b.(type) {
		case Duration:
			if y == math.MinInt64 {
				return nil, Errorf(CodeOverflow, "datetime overflow")
			}
			return shiftDateTime(x, -int64(y))
		case DateTime:
			return diffDateTime(x, y)
		}
	}
	return nil, opError("-", a, b)
}

func mul(a, b Value) (Value, error) {
	switch x := a.(type) {
	case Int:
		switch y := b.(type) {
		case Int:
			if r, ok := mulInt64(int64(x), int64(y)); ok {
				return IntValue(r), nil
			}
			return nil, Errorf(CodeOverflow, "integer overflow in %d * %d", int64(x), int64(y))
		case Float:
			return Float(float64(x) * float64(y)), nil
		case Size:
			return sizeTimesInt(y, int64(x))
		case Duration:
			return durTimesInt(y, int64(x))
		}
	case Float:
		switch y := b.(type) {
		case Int:
			return Float(float64(x) * float64(y)), nil
		case Float:
			return x * y, nil
		case Size:
			return sizeTimesFloat(y, float64(x))
		case Duration:
			return durTimesFloat(y, float64(x))
		}
	case Size:
		switch y := b.(type) {
		case Int:
			return sizeTimesInt(x, int64(y))
		case Float:
			return sizeTimesFloat(x, float64(y))
		}
	case Duration:
		switch y := b.(type) {
		case Int:
			return durTimesInt(x, int64(y))
		case Float:
			return durTimesFloat(x, float64(y))
		}
	}
	return nil, opError("*", a, b)
}

func div(a, b Value) (Value, error) {
	switch x := a.(type) {
	case Int:
		switch y := b.(type) {
		case Int:
			if y == 0 {
				return nil, Errorf(CodeDivZero, "division by zero")
			}
			if x == math.MinInt64 && y == -1 {
				return nil, Errorf(CodeOverflow, "integer overflow in %d / -1", int64(x))
			}
			return IntValue(int64(x / y)), nil
		case Float:
			return Float(float64(x) / float64(y)), nil
		}
	case Float:
		switch y := b.(type) {
		case Int:
			return Float(float64(x) / float64(y)), nil
		case Float:
			return x / y, nil
		}
	case Size:
		switch y := b.(type) {
		case Int:
			if y == 0 {
				return nil, Errorf(CodeDivZero, "division by zero")
			}
			if y < 0 {
				return nil, Errorf(CodeType, "size cannot be negative: %s / %d", FormatSize(int64(x)), int64(y))
			}
			return x / Size(y), nil
		case Size:
			if y == 0 {
				return nil, Errorf(CodeDivZero, "division by zero")
			}
			return Float(float64(x) / float64(y)), nil
		}
	case Duration:
		switch y := b.(type) {
		case Int:
			if y == 0 {
				return nil, Errorf(CodeDivZero, "division by zero")
			}
			if x == math.MinInt64 && y == -1 {
				return nil, Errorf(CodeOverflow, "duration overflow in division")
			}
			return x / Duration(y), nil
		case Duration:
			if y == 0 {
				return nil, Errorf(CodeDivZero, "division by zero")
			}
			return Float(float64(x) / float64(y)), nil
		}
	}
	return nil, opError("/", a, b)
}

func rem(a, b Value) (Value, error) {
	switch x := a.(type) {
	case Int:
		switch y := b.(type) {
		case Int:
			if y == 0 {
				return nil, Errorf(CodeDivZero, "remainder by zero")
			}
			if y == -1 {
				return Int(0), nil // also avoids MinInt64 % -1
			}
			return IntValue(int64(x % y)), nil
		case Float:
			return Float(math.Mod(float64(x), float64(y))), nil
		}
	case Float:
		switch y := b.(type) {
		case Int:
			return Float(math.Mod(float64(x), float64(y))), nil
		case Float:
			return Float(math.Mod(float64(x), float64(y))), nil
		}
	}
	return nil, opError("%", a, b)
}

func sizeTimesInt(s Size, n int64) (Value, error) {
	if n < 0 && s != 0 {
		return nil, Errorf(CodeType, "size cannot be negative: %s * %d", FormatSize(int64(s)), n)
	}
	if n < 0 {
		return Size(0), nil
	}
	r, ok := mulInt64(int64(s), n)
	if !ok {
		return nil, Errorf(CodeOverflow, "size overflow in %s * %d", FormatSize(int64(s)), n)
	}
	return Size(r), nil
}

func sizeTimesFloat(s Size, f float64) (Value, error) {
	if math.IsNaN(f) {
		return nil, Errorf(CodeType, "cannot scale a size by nan")
	}
	r := math.Round(float64(s) * f)
	if r < 0 {
		return nil, Errorf(CodeType, "size cannot be negative: %s * %v", FormatSize(int64(s)), f)
	}
	if r >= math.MaxInt64 {
		return nil, Errorf(CodeOverflow, "size overflow in %s * %v", FormatSize(int64(s)), f)
	}
	return Size(int64(r)), nil
}

func durTimesInt(d Duration, n int64) (Value, error) {
	r, ok := mulInt64(int64(d), n)
	if !ok {
		return nil, Errorf(CodeOverflow, "duration overflow in %s * %d", FormatDuration(int64(d)), n)
	}
	return Duration(r), nil
}

func durTimesFloat(d Duration, f float64) (Value, error) {
	if math.IsNaN(f) {
		return nil, Errorf(CodeType, "cannot scale a duration by nan")
	}
	r := math.Round(float64(d) * f)
	if r >= math.MaxInt64 || r < math.MinInt64 {
		return nil, Errorf(CodeOverflow, "duration overflow in %s * %v", FormatDuration(int64(d)), f)
	}
	return Duration(int64(r)), nil
}

func shiftDateTime(d DateTime, ns int64) (Value, error) {
	t := d.T.Add(time.Duration(ns))
	if !validDateTime(t) {
		return nil, Errorf(CodeOverflow, "datetime overflow: result out of range")
	}
	return DateTime{T: t}, nil
}

func diffDateTime(a, b DateTime) (Value, error) {
	secs, ok := subInt64(a.T.Unix(), b.T.Unix())
	if ok {
		var ns int64
		if ns, ok = mulInt64(secs, int64(time.Second)); ok {
			ns, ok = addInt64(ns, int64(a.T.Nanosecond()-b.T.Nanosecond()))
			if ok {
				return Duration(ns), nil
			}
		}
	}
	return nil, Errorf(CodeOverflow, "duration overflow: datetimes too far apart")
}

func concatLists(a, b []Value) *List {
	out := make([]Value, 0, len(a)+len(b))
	out = append(out, a...)
	return NewList(append(out, b...))
}

func tableRows(t *Table) []Value {
	rows := make([]Value, t.N)
	for i := range rows {
		rows[i] = t.Row(i)
	}
	return rows
}

// concatTables appends y's rows to x when both have the same columns.
func concatTables(x, y *Table) (*Table, bool) {
	if len(x.Cols) != len(y.Cols) {
		return nil, false
	}
	for i, c := range x.Cols {
		if y.Cols[i] != c {
			return nil, false
		}
	}
	data := make([][]Value, len(x.Cols))
	for c := range data {
		col := make([]Value, 0, x.N+y.N)
		col = append(col, x.Data[c]...)
		data[c] = append(col, y.Data[c]...)
	}
	return &Table{Cols: x.Cols, Data: data, N: x.N + y.N}, true
}

// addInt64 adds with overflow detection.
func addInt64(a, b int64) (int64, bool) {
	r := a + b
	return r, (r > a) == (b > 0)
}

// subInt64 subtracts with overflow detection.
func subInt64(a, b int64) (int64, bool) {
	r := a - b
	return r, (r < a) == (b > 0)
}

// mulInt64 multiplies with overflow detection.
func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	neg := (a < 0) != (b < 0)
	ua, ub := absU(a), absU(b)
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 {
		return 0, false
	}
	if neg {
		if lo > 1<<63 {
			return 0, false
		}
		return int64(-lo), true
	}
	if lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a) // MinInt64 wraps to 1<<63, as wanted
	}
	return uint64(a)
}
