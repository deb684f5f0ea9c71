package format

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
)

var (
	spanType    = reflect.TypeOf(syntax.Span{})
	commentType = reflect.TypeOf([]syntax.Comment(nil))
	nodeType    = reflect.TypeOf((*syntax.Node)(nil)).Elem()
)

// treeSources are the sources the tree-comparison tests run over: the
// corpus and the golden inputs.
func treeSources(t *testing.T) []string {
	t.Helper()
	srcs := corpusSources(t)
	files, _ := filepath.Glob("testdata/*.shl")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, string(b))
	}
	// What neither holds: a typed let, an environment prefix, trailing
	// blocks.
	return append(srcs, "let x: int = 1\nA=1 ls\nxs.each { 1 }\nls { 1 }\n")
}

// TestSameTreeSeesEveryField: changing any one field of any node of a
// parsed tree (a value, an optional child made absent, a list made
// shorter) makes SameTree report a different tree. It reaches the fields
// by reflection, so a field added to the AST and forgotten in sameNode
// fails here.
func TestSameTreeSeesEveryField(t *testing.T) {
	checked := map[string]bool{}
	for _, src := range treeSources(t) {
		a, err := syntax.Parse(src, parseOptions)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := syntax.Parse(src, parseOptions)
		if !SameTree(a, b) {
			t.Fatalf("%q: two parses differ", src)
		}
		syntax.Walk(b, func(n syntax.Node) bool {
			v := reflect.ValueOf(n).Elem()
			for i := 0; i < v.NumField(); i++ {
				f := v.Field(i)
				if f.Type() == spanType || f.Type() == commentType {
					continue
				}
				name := v.Type().Name() + "." + v.Type().Field(i).Name
				tried, seen := mutate(f, func() bool { return SameTree(a, b) })
				if tried && !seen {
					t.Errorf("%q: changing %s went unseen", src, name)
				}
				checked[name] = checked[name] || tried
			}
			return true
		})
	}
	for name, ok := range checked {
		if !ok {
			t.Logf("%s: no source has one to change", name)
		}
	}
	if len(checked) < 100 {
		t.Fatalf("only %d fields checked", len(checked))
	}
}

// mutate changes f in place, asks same, restores f, and reports whether a
// change was made (not for an absent child or an empty list) and whether
// same said the trees differ.
func mutate(f reflect.Value, same func() bool) (tried, seen bool) {
	old := reflect.New(f.Type()).Elem()
	old.Set(f)
	defer f.Set(old)
	switch f.Kind() {
	case reflect.String:
		f.SetString(f.String() + "x")
	case reflect.Bool:
		f.SetBool(!f.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f.SetInt(f.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		f.SetUint(f.Uint() + 1)
	case reflect.Float32, reflect.Float64:
		f.SetFloat(f.Float() + 1)
	case reflect.Pointer, reflect.Interface:
		if f.IsNil() {
			return false, false
		}
		f.Set(reflect.Zero(f.Type()))
	case reflect.Slice:
		if f.Len() == 0 {
			return false, false
		}
		if f.Type().Elem().Kind() == reflect.Struct && !f.Type().Elem().Implements(nodeType) {
			// StrPart: change each part's text instead of the length too.
			cp := reflect.MakeSlice(f.Type(), f.Len(), f.Len())
			reflect.Copy(cp, f)
			cp.Index(0).Field(0).SetString(cp.Index(0).Field(0).String() + "x")
			f.Set(cp)
			if same() {
				return true, false
			}
			f.Set(old)
		}
		f.Set(f.Slice(0, f.Len()-1))
	default:
		return false, false
	}
	return true, !same()
}
