package format

import (
	"reflect"
	"strings"
	"sync"

	"github.com/shoalgo/shoal/internal/syntax"
)

// check is the safety net: out must parse to before's tree, modulo spans,
// with the same comments (text without trailing blanks, place) in order.
func check(before *syntax.Program, out string) error {
	after, err := syntax.Parse(out, parseOptions)
	if err != nil {
		return &UnsafeError{Reason: "the output does not parse: " + err.Error()}
	}
	if !SameTree(before, after) {
		return &UnsafeError{Reason: "the output parses to a different tree"}
	}
	if len(before.Comments) != len(after.Comments) {
		return &UnsafeError{Reason: "the output has a different number of comments"}
	}
	for i, b := range before.Comments {
		a := after.Comments[i]
		if commentText(b) != commentText(a) || b.Place != a.Place {
			return &UnsafeError{Reason: "comment " + b.Text + " would change or move"}
		}
	}
	return nil
}

// commentText is a comment's text as the layout keeps it.
func commentText(c syntax.Comment) string { return strings.TrimRight(c.Text, " \t") }

var (
	spanType     = reflect.TypeOf(syntax.Span{})
	commentsType = reflect.TypeOf([]syntax.Comment(nil))
)

// SameTree reports whether a and b are the same tree but for spans (and
// comments, which are trivia).
func SameTree(a, b *syntax.Program) bool {
	return sameValue(reflect.ValueOf(a), reflect.ValueOf(b), 0)
}

// sameValue compares two values of the same static type field by field,
// skipping spans and comments.
func sameValue(a, b reflect.Value, depth int) bool {
	if depth > maxCompareDepth {
		return false
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem(), depth+1)
	case reflect.Struct:
		for _, i := range comparedFields(a.Type()) {
			if !sameValue(a.Field(i), b.Field(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameValue(a.Index(i), b.Index(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || (x != x && y != y)
	case reflect.Map, reflect.Func, reflect.Chan:
		return a.IsNil() && b.IsNil()
	}
	return false
}

// fieldCache maps a struct type to the indexes of the fields sameValue
// compares (all but spans and comments).
var fieldCache sync.Map

func comparedFields(t reflect.Type) []int {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]int)
	}
	var idx []int
	for i := 0; i < t.NumField(); i++ {
		if ft := t.Field(i).Type; ft != spanType && ft != commentsType {
			idx = append(idx, i)
		}
	}
	fieldCache.Store(t, idx)
	return idx
}
