package value

// Argument validation shared by the method library. Every method checks its
// arity explicitly so a stray argument is an arg_error rather than silently
// ignored. Unexported names in the methods_*.go files carry an "m" prefix to
// stay clear of the rest of the package.

// mArgErr is an arg_error.
func mArgErr(format string, args ...any) *Error { return Errorf(CodeArg, format, args...) }

// mTypeErr is a type_error.
func mTypeErr(format string, args ...any) *Error { return Errorf(CodeType, format, args...) }

// mNoNamed rejects named arguments.
func mNoNamed(name string, a Args) error {
	if len(a.Named) > 0 {
		return mArgErr("%s takes no named argument %q", name, a.Named[0].Name)
	}
	return nil
}

// mNoArgs rejects every argument.
func mNoArgs(name string, a Args) error {
	if len(a.Pos) > 0 || len(a.Named) > 0 {
		return mArgErr("%s takes no arguments", name)
	}
	return nil
}

// mArity checks that between lo and hi positional arguments were passed.
// missing names what the first absent required argument is ("a separator").
func mArity(name string, a Args, lo, hi int, missing string) error {
	if err := mNoNamed(name, a); err != nil {
		return err
	}
	if len(a.Pos) < lo {
		return mArgErr("%s requires %s", name, missing)
	}
	if len(a.Pos) > hi {
		if hi == 0 {
			return mArgErr("%s takes no arguments", name)
		}
		return mArgErr("%s takes at most %d argument%s, got %d", name, hi, mPlural(hi), len(a.Pos))
	}
	return nil
}

func mPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// mCount reads a non-negative int count argument.
func mCount(name string, v Value) (int, error) {
	n, ok := v.(Int)
	if !ok {
		return 0, mTypeErr("%s expects a non-negative int, got %s", name, TypeName(v))
	}
	if n < 0 {
		return 0, mTypeErr("%s expects a non-negative int, got %d", name, int64(n))
	}
	if uint64(n) > uint64(maxInt) {
		return maxInt, nil
	}
	return int(n), nil
}

const maxInt = int(^uint(0) >> 1)

// mStr reads a str argument.
func mStr(name, what string, v Value) (string, error) {
	s, ok := v.(Str)
	if !ok {
		return "", mTypeErr("%s expects %s as a str, got %s", name, what, TypeName(v))
	}
	return string(s), nil
}

// mFunc checks the single required callable argument of a higher-order
// method and returns it.
func mFunc(name string, a Args) (Value, error) {
	if err := mArity(name, a, 1, 1, "a function"); err != nil {
		return nil, err
	}
	return a.Pos[0], nil
}

// mCond interprets a predicate result (bool or outcome).
func mCond(name string, v Value) (bool, error) {
	switch x := v.(type) {
	case Bool:
		return bool(x), nil
	case *Outcome:
		return x.Ok(), nil
	}
	return false, mTypeErr("%s predicate must return bool, got %s", name, TypeName(v)).
		WithHint("there is no truthiness: compare explicitly, e.g. `x => x != null`")
}

// mRegister registers m under every name for kind k.
func mRegister(k Kind, m Method, names ...string) {
	for _, n := range names {
		addMethod(k, n, m)
	}
}
