package value

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// String methods. Lengths and slices count Unicode scalar values, not bytes
// and not grapheme clusters.

func registerStrMethods() {
	mRegister(KStr, strLen, "len", "count")
	mRegister(KStr, strIsEmpty, "is_empty")
	mRegister(KStr, strLines, "lines")
	mRegister(KStr, strWords, "words")
	mRegister(KStr, strChars, "chars")
	mRegister(KStr, strUnary("trim", strings.TrimSpace), "trim")
	mRegister(KStr, strUnary("upper", strings.ToUpper), "upper")
	mRegister(KStr, strUnary("lower", strings.ToLower), "lower")
	mRegister(KStr, strUnary("reverse", mReverseRunes), "reverse")
	mRegister(KStr, strSplit, "split")
	mRegister(KStr, strAffix("starts_with", "a prefix", strings.HasPrefix), "starts_with")
	mRegister(KStr, strAffix("ends_with", "a suffix", strings.HasSuffix), "ends_with")
	mRegister(KStr, strContains, "contains")
	mRegister(KStr, strReplace, "replace")
	mRegister(KStr, strMatches, "matches")
	mRegister(KStr, strMatch, "match")
	mRegister(KStr, strParseInt, "parse_int")
	mRegister(KStr, strParseFloat, "parse_float")
	mRegister(KStr, strTake, "take")
	mRegister(KStr, strSkip, "skip")
}

func strLen(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("len", a); err != nil {
		return nil, err
	}
	return Int(utf8.RuneCountInString(string(recv.(Str)))), nil
}

func strIsEmpty(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("is_empty", a); err != nil {
		return nil, err
	}
	return Bool(recv.(Str) == ""), nil
}

// mReserveParts reserves through env what a list of n parts of a string
// costs: a Go string header while split, a list slot and a boxed str
// header each.
func mReserveParts(env Env, n int) (release func(), err error) {
	return Reserve(env, int64(n)*(2*slotBytes+headerBytes))
}

// mStrList converts Go strings into a list of str values.
func mStrList(parts []string) *List {
	out := make([]Value, len(parts))
	for i, p := range parts {
		out[i] = Str(p)
	}
	return NewList(out)
}

// mLines splits text into logical lines: a trailing newline does not start
// an extra empty line and a CR before each LF is dropped.
func mLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = strings.TrimSuffix(p, "\r")
	}
	return parts
}

func strLines(env Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("lines", a); err != nil {
		return nil, err
	}
	s := string(recv.(Str))
	n := strings.Count(s, "\n") + 1
	if err := CheckItems(n); err != nil {
		return nil, err
	}
	release, err := mReserveParts(env, n)
	if err != nil {
		return nil, err
	}
	defer release()
	return mStrList(mLines(s)), nil
}

func strWords(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("words", a); err != nil {
		return nil, err
	}
	words := strings.Fields(string(recv.(Str)))
	if err := CheckItems(len(words)); err != nil {
		return nil, err
	}
	return mStrList(words), nil
}

func strChars(env Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("chars", a); err != nil {
		return nil, err
	}
	s := string(recv.(Str))
	n := utf8.RuneCountInString(s)
	if err := CheckItems(n); err != nil {
		return nil, err
	}
	release, err := mReserveParts(env, n)
	if err != nil {
		return nil, err
	}
	defer release()
	out := make([]Value, 0, n)
	for len(s) > 0 {
		_, size := utf8.DecodeRuneInString(s)
		out = append(out, Str(s[:size]))
		s = s[size:]
	}
	return NewList(out), nil
}

func strUnary(name string, f func(string) string) Method {
	return func(_ Env, recv Value, a Args) (Value, error) {
		if err := mNoArgs(name, a); err != nil {
			return nil, err
		}
		return Str(f(string(recv.(Str)))), nil
	}
}

func mReverseRunes(s string) string {
	rs := []rune(s)
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return string(rs)
}

func strSplit(env Env, recv Value, a Args) (Value, error) {
	if err := mArity("split", a, 1, 1, "a separator"); err != nil {
		return nil, err
	}
	s := string(recv.(Str))
	switch sep := a.Pos[0].(type) {
	case Str:
		n := utf8.RuneCountInString(s) // an empty separator splits into characters
		if sep != "" {
			n = strings.Count(s, string(sep)) + 1
		}
		if err := CheckItems(n); err != nil {
			return nil, err
		}
		release, err := mReserveParts(env, n)
		if err != nil {
			return nil, err
		}
		defer release()
		return mStrList(strings.Split(s, string(sep))), nil
	case *Regex:
		parts := sep.Re.Split(s, -1)
		if err := CheckItems(len(parts)); err != nil {
			return nil, err
		}
		return mStrList(parts), nil
	}
	return nil, mTypeErr("split expects a str or regex separator, got %s", TypeName(a.Pos[0]))
}

func strAffix(name, what string, test func(s, affix string) bool) Method {
	return func(_ Env, recv Value, a Args) (Value, error) {
		if err := mArity(name, a, 1, 1, what); err != nil {
			return nil, err
		}
		x, err := mStr(name, what, a.Pos[0])
		if err != nil {
			return nil, err
		}
		return Bool(test(string(recv.(Str)), x)), nil
	}
}

func strContains(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("contains", a, 1, 1, "a substring"); err != nil {
		return nil, err
	}
	s := string(recv.(Str))
	switch x := a.Pos[0].(type) {
	case Str:
		return Bool(strings.Contains(s, string(x))), nil
	case *Regex:
		return Bool(x.Re.MatchString(s)), nil
	}
	return nil, mTypeErr("str contains expects a str substring, got %s", TypeName(a.Pos[0])).
		WithHint("convert the needle first: s.contains(\"{x}\")")
}

func strReplace(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoNamed("replace", a); err != nil {
		return nil, err
	}
	switch len(a.Pos) {
	case 0:
		return nil, mArgErr("replace requires a pattern and a replacement")
	case 1:
		return nil, mArgErr("replace requires a replacement").
			WithHint("pass both: s.replace(pattern, replacement)")
	case 2:
	default:
		return nil, mArgErr("replace takes 2 arguments, got %d", len(a.Pos))
	}
	rep, err := mStr("replace", "the replacement", a.Pos[1])
	if err != nil {
		return nil, err
	}
	s := string(recv.(Str))
	switch pat := a.Pos[0].(type) {
	case Str:
		if grow := len(rep) - len(pat); grow > 0 {
			n := strings.Count(s, string(pat))
			if n > 0 && (n > MaxStrBytes/grow || len(s)+n*grow > MaxStrBytes) {
				return nil, CheckStrLen(MaxStrBytes + 1)
			}
		}
		return Str(strings.ReplaceAll(s, string(pat), rep)), nil
	case *Regex:
		// A replacement can expand to far more than its own length ($0, $1),
		// so when the result could pass the bound it is built match by
		// match and abandoned as soon as it does.
		if len(rep) > 0 && len(s)+(len(s)+1)*len(rep) > MaxStrBytes {
			return mRegexReplaceBounded(pat.Re, s, rep)
		}
		return Str(pat.Re.ReplaceAllString(s, rep)), nil
	}
	return nil, mTypeErr("replace expects a str or regex pattern, got %s", TypeName(a.Pos[0]))
}

// mRegexReplaceBounded is re.ReplaceAllString(s, rep) that fails with
// too_large once the result would pass MaxStrBytes.
func mRegexReplaceBounded(re *regexp.Regexp, s, rep string) (Value, error) {
	var b strings.Builder
	var expanded []byte
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		expanded = re.ExpandString(expanded[:0], rep, s, m)
		if err := CheckStrLen(b.Len() + (m[0] - last) + len(expanded)); err != nil {
			return nil, err
		}
		b.WriteString(s[last:m[0]])
		b.Write(expanded)
		last = m[1]
	}
	if err := CheckStrLen(b.Len() + len(s) - last); err != nil {
		return nil, err
	}
	b.WriteString(s[last:])
	return Str(b.String()), nil
}

// mRegexArg reads a regex argument; a str is compiled as a pattern.
func mRegexArg(name string, a Args) (*regexp.Regexp, error) {
	if err := mArity(name, a, 1, 1, "a regex"); err != nil {
		return nil, err
	}
	switch x := a.Pos[0].(type) {
	case *Regex:
		return x.Re, nil
	case Str:
		re, err := regexp.Compile(string(x))
		if err != nil {
			return nil, mArgErr("%s: invalid regex %q: %v", name, string(x), err)
		}
		return re, nil
	}
	return nil, mTypeErr("%s expects a regex, got %s", name, TypeName(a.Pos[0]))
}

func strMatches(_ Env, recv Value, a Args) (Value, error) {
	re, err := mRegexArg("matches", a)
	if err != nil {
		return nil, err
	}
	return mStrList(re.FindAllString(string(recv.(Str)), -1)), nil
}

func strMatch(_ Env, recv Value, a Args) (Value, error) {
	re, err := mRegexArg("match", a)
	if err != nil {
		return nil, err
	}
	s := string(recv.(Str))
	loc := re.FindStringIndex(s)
	if loc == nil {
		return Nil, nil
	}
	return Str(s[loc[0]:loc[1]]), nil
}

func strParseInt(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("parse_int", a); err != nil {
		return nil, err
	}
	s := strings.TrimSpace(string(recv.(Str)))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return nil, Errorf(CodeOverflow, "parse_int: %q is out of the int range", s)
		}
		return nil, mArgErr("parse_int: %q is not an integer", string(recv.(Str)))
	}
	return Int(n), nil
}

func strParseFloat(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("parse_float", a); err != nil {
		return nil, err
	}
	s := strings.TrimSpace(string(recv.(Str)))
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return nil, mArgErr("parse_float: %q is not a number", string(recv.(Str)))
		}
	}
	return Float(f), nil
}

// mRuneOffset is the byte offset of the n-th scalar of s (len(s) past the
// end).
func mRuneOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

func strTake(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("take", a, 1, 1, "a count"); err != nil {
		return nil, err
	}
	n, err := mCount("take", a.Pos[0])
	if err != nil {
		return nil, err
	}
	s := string(recv.(Str))
	return Str(s[:mRuneOffset(s, n)]), nil
}

func strSkip(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("skip", a, 1, 1, "a count"); err != nil {
		return nil, err
	}
	n, err := mCount("skip", a.Pos[0])
	if err != nil {
		return nil, err
	}
	s := string(recv.(Str))
	return Str(s[mRuneOffset(s, n):]), nil
}
