package value

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/syntax"
)

// Truthy is the truth value of v as a condition. Only bool and outcome
// (its ok flag) have one; anything else is a type_error saying it has no
// truthiness.
func Truthy(v Value) (bool, error) {
	switch x := v.(type) {
	case Bool:
		return bool(x), nil
	case *Outcome:
		return x.Ok(), nil
	}
	return false, Errorf(CodeType, "%s has no truthiness: conditions must be bool", TypeName(v)).
		WithHint("test explicitly, e.g. `.is_empty()`, `== null` or `> 0`")
}

// TypeSpec is a parsed parameter type: NAME, NAME<args>, with optional `?`.
type TypeSpec struct {
	Name     string
	Args     []TypeSpec
	Optional bool
}

// ParseTypeSpec parses type text such as "int", "list<int>", "str?" or
// "list<list<path>>". Malformed text yields a spec naming the raw text,
// which Coerce treats as an unknown (pass-through) type.
func ParseTypeSpec(text string) TypeSpec {
	spec, rest := parseTypeSpec(strings.TrimSpace(text))
	if strings.TrimSpace(rest) != "" {
		return TypeSpec{Name: text}
	}
	return spec
}

func parseTypeSpec(s string) (TypeSpec, string) {
	i := 0
	for i < len(s) && s[i] != '<' && s[i] != '>' && s[i] != ',' && s[i] != '?' {
		i++
	}
	spec := TypeSpec{Name: strings.TrimSpace(s[:i])}
	s = s[i:]
	if strings.HasPrefix(s, "<") {
		s = s[1:]
		for {
			var arg TypeSpec
			arg, s = parseTypeSpec(strings.TrimLeft(s, " "))
			spec.Args = append(spec.Args, arg)
			s = strings.TrimLeft(s, " ")
			if strings.HasPrefix(s, ",") {
				s = s[1:]
				continue
			}
			s = strings.TrimPrefix(s, ">")
			break
		}
	}
	if strings.HasPrefix(s, "?") {
		spec.Optional, s = true, s[1:]
	}
	return spec, s
}

// SpecOf converts a parsed type annotation.
func SpecOf(t *syntax.TypeExpr) TypeSpec {
	if t == nil {
		return TypeSpec{Name: "any"}
	}
	spec := TypeSpec{Name: t.Name, Optional: t.Optional}
	for _, a := range t.Args {
		spec.Args = append(spec.Args, SpecOf(a))
	}
	return spec
}

// Coerce converts an argument to the declared parameter type typ with type
// arguments args (e.g. "list", []string{"int"}); see CoerceSpec.
func Coerce(v Value, typ string, args []string) (Value, error) {
	spec := TypeSpec{Name: typ}
	if strings.HasSuffix(typ, "?") {
		spec.Name, spec.Optional = strings.TrimSuffix(typ, "?"), true
	}
	for _, a := range args {
		spec.Args = append(spec.Args, ParseTypeSpec(a))
	}
	return CoerceSpec(v, spec)
}

// CoerceType converts an argument to a parsed type annotation; a nil
// annotation accepts anything.
func CoerceType(v Value, t *syntax.TypeExpr) (Value, error) {
	if t == nil {
		return v, nil
	}
	return CoerceSpec(v, SpecOf(t))
}

// CoerceSpec implements typed parameter coercion. A str (a command word)
// is parsed into int, float, bool, path, glob, regex, size (a unit literal
// or a bare byte count), duration (a literal or bare seconds), time or
// datetime; a word bound to list<T> becomes a one-item list. A list bound
// to list<T> has its elements coerced. An int bound to duration counts
// seconds. Other already-typed values pass through unchanged, as do values
// for unknown type names. Failure is an arg_error such as
// `expected int, got "abc"`.
func CoerceSpec(v Value, spec TypeSpec) (Value, error) {
	if spec.Optional && isNull(v) {
		return v, nil
	}
	switch x := v.(type) {
	case Str:
		return coerceWord(string(x), spec)
	case Int:
		if spec.Name == "duration" {
			ns, ok := mulInt64(int64(x), int64(time.Second))
			if !ok {
				return nil, Errorf(CodeOverflow, "duration overflow: %d seconds", int64(x))
			}
			return Duration(ns), nil
		}
	case *List:
		if spec.Name == "list" && len(spec.Args) == 1 {
			return coerceItems(x, spec.Args[0])
		}
	}
	return v, nil
}

func coerceItems(l *List, elem TypeSpec) (Value, error) {
	var out []Value // allocated on the first change
	for i, it := range l.Items {
		c, err := CoerceSpec(it, elem)
		if err != nil {
			return nil, err
		}
		if out == nil && !sameValue(c, it) {
			out = make([]Value, len(l.Items))
			copy(out, l.Items[:i])
		}
		if out != nil {
			out[i] = c
		}
	}
	if out == nil {
		return l, nil
	}
	return NewList(out), nil
}

// sameValue reports whether coercion left a value untouched (cheap
// identity check on the common cases).
func sameValue(a, b Value) bool {
	switch x := a.(type) {
	case Str:
		y, ok := b.(Str)
		return ok && x == y
	case Int:
		y, ok := b.(Int)
		return ok && x == y
	case *List:
		y, ok := b.(*List)
		return ok && x == y
	}
	return false
}

func coerceWord(w string, spec TypeSpec) (Value, error) {
	fail := func() (Value, error) {
		return nil, Errorf(CodeArg, "expected %s, got %s", specText(spec), InlineShort(Str(w), 200))
	}
	switch spec.Name {
	case "int":
		if n, ok := ParseIntWord(w); ok {
			return Int(n), nil
		}
		return fail()
	case "float":
		if n, ok := ParseIntWord(w); ok {
			return Float(float64(n)), nil
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(w, "_", ""), 64)
		if err != nil || strings.ContainsAny(w, "xXpP") || math.IsInf(f, 0) && !strings.Contains(strings.ToLower(w), "inf") {
			return fail()
		}
		return Float(f), nil
	case "bool":
		switch w {
		case "true":
			return Bool(true), nil
		case "false":
			return Bool(false), nil
		}
		return fail()
	case "path":
		return Path(w), nil
	case "glob":
		return &Glob{Pattern: w}, nil
	case "regex":
		re, err := regexp.Compile(w)
		if err != nil {
			return nil, Errorf(CodeArg, "expected regex, got %s: %v", InlineShort(Str(w), 200), err)
		}
		return &Regex{Source: w, Re: re}, nil
	case "size":
		if n, ok := ParseSize(w); ok {
			return Size(n), nil
		}
		if n, ok := ParseIntWord(w); ok && n >= 0 {
			return Size(n), nil
		}
		return fail()
	case "duration":
		if n, ok := ParseDuration(w); ok {
			return Duration(n), nil
		}
		if n, ok := ParseIntWord(w); ok {
			if ns, ok := mulInt64(n, int64(time.Second)); ok {
				return Duration(ns), nil
			}
		}
		return fail()
	case "time":
		if t, ok := ParseTimeOfDay(w); ok {
			return t, nil
		}
		return fail()
	case "datetime":
		dt, err := ParseDateTime(w)
		if err != nil {
			return fail()
		}
		return dt, nil
	case "list":
		elem := TypeSpec{Name: "any"}
		if len(spec.Args) == 1 {
			elem = spec.Args[0]
		}
		it, err := coerceWord(w, elem)
		if err != nil {
			return nil, err
		}
		return NewList([]Value{it}), nil
	case "null", "record", "table", "range", "bytes", "closure", "outcome", "error":
		return fail()
	}
	// str, any and names this package does not know pass through.
	return Str(w), nil
}

// specText renders a type spec as source text: list<int>, str?.
func specText(s TypeSpec) string {
	var b strings.Builder
	b.WriteString(s.Name)
	if len(s.Args) > 0 {
		b.WriteByte('<')
		for i, a := range s.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(specText(a))
		}
		b.WriteByte('>')
	}
	if s.Optional {
		b.WriteByte('?')
	}
	return b.String()
}

// ParseIntWord parses an integer word: decimal with optional sign and
// underscores, or 0x / 0o / 0b prefixed. A leading zero does not mean
// octal.
func ParseIntWord(w string) (int64, bool) {
	body := strings.TrimLeft(w, "+-")
	if len(w)-len(body) > 1 || body == "" {
		return 0, false
	}
	if len(body) > 2 && body[0] == '0' && strings.ContainsRune("xXoObB", rune(body[1])) {
		n, err := strconv.ParseInt(w, 0, 64)
		if err != nil {
			return 0, false
		}
		return n, true
	}
	if body[0] == '_' || body[len(body)-1] == '_' || strings.Contains(body, "__") {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(w, "_", ""), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}
