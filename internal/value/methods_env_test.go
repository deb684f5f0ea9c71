package value

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/syntax"
)

// Shared fixtures for the method-library tests: a fake Env that calls
// *Builtin values, value builders, and a table-test runner.

var mTestNow = time.Date(2026, 7, 9, 14, 0, 0, 0, time.UTC)

type mFakeEnv struct {
	calls int
}

func (e *mFakeEnv) Call(fn Value, args ...Value) (Value, error) {
	b, ok := fn.(*Builtin)
	if !ok {
		return nil, Errorf("type_error", "%s is not callable", TypeName(fn))
	}
	e.calls++
	return b.Fn(e, Args{Pos: args})
}

func (e *mFakeEnv) Context() context.Context  { return context.Background() }
func (e *mFakeEnv) Now() time.Time            { return mTestNow }
func (e *mFakeEnv) Clock() (time.Time, error) { return mTestNow, nil }

// fn wraps a one-argument Go function as a callable.
func mtFn(f func(Value) Value) *Builtin {
	return &Builtin{Name: "fn", Fn: func(_ Env, a Args) (Value, error) { return f(a.Pos[0]), nil }}
}

// fnErr wraps a one-argument Go function that may fail.
func mtFnErr(f func(Value) (Value, error)) *Builtin {
	return &Builtin{Name: "fn", Fn: func(_ Env, a Args) (Value, error) { return f(a.Pos[0]) }}
}

// fn2 wraps a two-argument Go function.
func mtFn2(f func(a, b Value) Value) *Builtin {
	return &Builtin{Name: "fn2", Fn: func(_ Env, a Args) (Value, error) { return f(a.Pos[0], a.Pos[1]), nil }}
}

func mtField(name string) *Builtin {
	return mtFnErr(func(v Value) (Value, error) {
		r, ok := v.(*Record)
		if !ok {
			return nil, Errorf("type_error", "not a record")
		}
		x, ok := r.Get(name)
		if !ok {
			return nil, Errorf("field_missing", "no field %s", name)
		}
		return x, nil
	})
}

func mtAdd(a, b Value) Value {
	v, err := BinaryOp(syntax.OpAdd, a, b)
	if err != nil {
		panic(err)
	}
	return v
}

func mtL(items ...Value) *List { return NewList(items) }

// R builds a record from alternating keys and values.
func mtR(kv ...any) *Record {
	var keys []string
	var vals []Value
	for i := 0; i < len(kv); i += 2 {
		keys = append(keys, kv[i].(string))
		vals = append(vals, mToValue(kv[i+1]))
	}
	return NewRecord(keys, vals)
}

func mToValue(x any) Value {
	switch v := x.(type) {
	case int:
		return Int(v)
	case string:
		return Str(v)
	case float64:
		return Float(v)
	case bool:
		return Bool(v)
	case nil:
		return Nil
	case Value:
		return v
	}
	panic("bad test value")
}

// T builds a table from column names and rows.
func mtT(cols []string, rows ...[]any) *Table {
	t := &Table{Cols: cols, Data: make([][]Value, len(cols)), N: len(rows)}
	for c := range cols {
		t.Data[c] = make([]Value, len(rows))
		for r, row := range rows {
			t.Data[c][r] = mToValue(row[c])
		}
	}
	return t
}

// mCase is one method call and its expected inline result or error.
type mtCase struct {
	name     string
	recv     Value
	method   string
	args     []Value
	want     string // Inline rendering of the result
	wantKind Kind   // checked when non-zero
	err      string // error code
	contains string // substring of the error message or hint
}

func mtCall(recv Value, name string, args ...Value) (Value, error) {
	m, ok := LookupMethod(recv.Kind(), name)
	if !ok {
		return nil, UnknownMethod(recv, name)
	}
	return m(&mFakeEnv{}, recv, Args{Pos: args})
}

func mtRun(t *testing.T, cases []mtCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := mtCall(c.recv, c.method, c.args...)
			if c.err != "" {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("want %s error, got value %v, err %v", c.err, got, err)
				}
				if e.Code != c.err {
					t.Fatalf("want code %s, got %s (%s)", c.err, e.Code, e.Msg)
				}
				if c.contains != "" && !strings.Contains(e.Msg+"\n"+e.Hint, c.contains) {
					t.Fatalf("error %q / hint %q lacks %q", e.Msg, e.Hint, c.contains)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if s := Inline(got); s != c.want {
				t.Fatalf("got %s, want %s", s, c.want)
			}
			if c.wantKind != 0 && got.Kind() != c.wantKind {
				t.Fatalf("got kind %s, want %s", got.Kind(), c.wantKind)
			}
		})
	}
}

func mtInts(ns ...int) *List {
	out := make([]Value, len(ns))
	for i, n := range ns {
		out[i] = Int(n)
	}
	return NewList(out)
}

func mtStrs(ss ...string) *List {
	out := make([]Value, len(ss))
	for i, s := range ss {
		out[i] = Str(s)
	}
	return NewList(out)
}

func mtArgs(xs ...any) []Value {
	out := make([]Value, len(xs))
	for i, x := range xs {
		out[i] = mToValue(x)
	}
	return out
}
