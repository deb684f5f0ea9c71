package namespaces

import (
	"strconv"

	"github.com/shoalgo/shoal/internal/value"
)

// arity checks the positional count is within [lo, hi] and that every
// named argument is one of allowed. Violations are arg_error.
func arity(fn string, a value.Args, lo, hi int, allowed ...string) error {
	n := len(a.Pos)
	if n < lo || n > hi {
		want := "1 argument"
		switch {
		case lo == hi && lo != 1:
			want = strconv.Itoa(lo) + " arguments"
		case lo != hi:
			want = strconv.Itoa(lo) + " to " + strconv.Itoa(hi) + " arguments"
		}
		return value.Errorf(value.CodeArg, "%s expects %s, got %d", fn, want, n)
	}
	for _, na := range a.Named {
		ok := false
		for _, name := range allowed {
			if na.Name == name {
				ok = true
				break
			}
		}
		if !ok {
			return value.Errorf(value.CodeArg, "%s has no parameter named %q", fn, na.Name)
		}
	}
	return nil
}

// strArg returns positional argument i, which must be a str.
func strArg(fn string, a value.Args, i int) (string, error) {
	s, ok := a.Pos[i].(value.Str)
	if !ok {
		return "", value.Errorf(value.CodeArg, "%s expects a str, got %s", fn, value.TypeName(a.Pos[i]))
	}
	return string(s), nil
}

// textArg is the common shape of every parse function: exactly one str.
func textArg(fn string, a value.Args) (string, error) {
	if err := arity(fn, a, 1, 1); err != nil {
		return "", err
	}
	return strArg(fn, a, 0)
}

// boolOption reads an optional boolean given either by name or at
// positional index pos.
func boolOption(fn, name string, a value.Args, pos int) (bool, error) {
	v, ok := a.Get(name)
	if !ok && len(a.Pos) > pos {
		v, ok = a.Pos[pos], true
	}
	if !ok {
		return false, nil
	}
	b, isBool := v.(value.Bool)
	if !isBool {
		return false, value.Errorf(value.CodeArg, "%s: %s must be a bool, got %s", fn, name, value.TypeName(v))
	}
	return bool(b), nil
}
