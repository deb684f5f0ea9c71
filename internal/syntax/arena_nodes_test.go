package syntax

import (
	"reflect"
	"testing"
)

// TestNodeConstructorsCopyAllFields fills every field of each slab node type
// with a non-zero value and checks that its constructor copies them all, so
// a field added to an AST node cannot be dropped silently. It also checks
// that every slab of the arena has a constructor under test.
func TestNodeConstructorsCopyAllFields(t *testing.T) {
	p := &parser{src: "x", pos: 1}
	tested := map[reflect.Type]bool{}
	for _, typ := range []reflect.Type{
		checkCtor(t, p, p.newVar),
		checkCtor(t, p, p.newField),
		checkCtor(t, p, p.newMethodCall),
		checkCtor(t, p, p.newCall),
		checkCtor(t, p, p.newArg),
		checkCtor(t, p, p.newCmd),
		checkCtor(t, p, p.newCmdCall),
		checkCtor(t, p, p.newCmdArg),
		checkCtor(t, p, p.newExprStmt),
		checkCtor(t, p, p.newLetStmt),
		checkCtor(t, p, p.newAssignStmt),
		checkCtor(t, p, p.newStrLit),
		checkCtor(t, p, p.newStrInterp),
		checkCtor(t, p, p.newIntLit),
		checkCtor(t, p, p.newBinary),
		checkCtor(t, p, p.newBlock),
		checkCtor(t, p, p.newLambda),
		checkCtor(t, p, p.newParam),
		checkCtor(t, p, p.newRecordField),
		checkCtor(t, p, p.newRecord),
		checkCtor(t, p, p.newMatchArm),
		checkCtor(t, p, p.newLitPat),
		checkCtor(t, p, p.newBindPat),
		checkCtor(t, p, p.newList),
		checkCtor(t, p, p.newIf),
		checkCtor(t, p, p.newTypeExpr),
		checkCtor(t, p, p.newWith),
		checkCtor(t, p, p.newWithEntry),
		checkCtor(t, p, p.newMatch),
		checkCtor(t, p, p.newCatch),
		checkCtor(t, p, p.newTry),
		checkCtor(t, p, p.newFnDecl),
		checkCtor(t, p, p.newFnStmt),
		checkCtor(t, p, p.newWildcardPat),
		checkCtor(t, p, p.newTypePat),
		checkCtor(t, p, p.newLangBlock),
		checkCtor(t, p, p.newDurationLit),
		checkCtor(t, p, p.newSizeLit),
		checkCtor(t, p, p.newUnary),
		checkCtor(t, p, p.newIndex),
		checkCtor(t, p, p.newForStmt),
		checkCtor(t, p, p.newReturnStmt),
		checkCtor(t, p, p.newRange),
		checkCtor(t, p, p.newBoolLit),
		checkCtor(t, p, p.newFloatLit),
		checkCtor(t, p, p.newNullLit),
		checkCtor(t, p, p.newRedirect),
	} {
		tested[typ] = true
	}
	ar := reflect.TypeOf(arena{})
	for i := 0; i < ar.NumField(); i++ {
		f := ar.Field(i)
		if f.Type.Kind() != reflect.Struct {
			continue
		}
		buf, ok := f.Type.FieldByName("buf")
		if !ok {
			continue // a seq, not a slab
		}
		if elem := buf.Type.Elem(); !tested[elem] {
			t.Errorf("slab %s of %v has no constructor under test", f.Name, elem)
		}
	}
}

// checkCtor builds a fully populated T, passes it through ctor and reports a
// difference; it returns T's type.
func checkCtor[T any](t *testing.T, _ *parser, ctor func(T) *T) reflect.Type {
	t.Helper()
	var v T
	fillNonZero(t, reflect.ValueOf(&v).Elem())
	got := ctor(v)
	if !reflect.DeepEqual(*got, v) {
		t.Errorf("constructor of %T drops fields: got %+v, want %+v", v, *got, v)
	}
	return reflect.TypeOf(v)
}

// fillNonZero sets every field of the struct v to a non-zero value.
func fillNonZero(t *testing.T, v reflect.Value) {
	candidates := []any{&Var{Name: "v"}, &BindPat{Name: "b"}, &ExprStmt{}}
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("s")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int32, reflect.Int64:
			f.SetInt(7)
		case reflect.Uint8:
			f.SetUint(7)
		case reflect.Float64:
			f.SetFloat(1.5)
		case reflect.Struct:
			fillNonZero(t, f)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Interface:
			for _, c := range candidates {
				if cv := reflect.ValueOf(c); cv.Type().Implements(f.Type()) {
					f.Set(cv)
					break
				}
			}
			if f.IsNil() {
				t.Fatalf("no value for interface field %s %v", v.Type().Field(i).Name, f.Type())
			}
		default:
			t.Fatalf("unhandled kind %v of field %s.%s", f.Kind(), v.Type().Name(), v.Type().Field(i).Name)
		}
	}
}
