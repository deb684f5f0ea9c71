package value

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Methods shared across receivers: tap/also and json on every kind, and
// the str/display conversions on the kinds that have a canonical text form.

func registerCommonMethods() {
	for k := range numKinds {
		mRegister(k, commonTap("tap"), "tap")
		mRegister(k, commonTap("also"), "also")
		addMethod(k, "json", commonJSON)
	}
	for _, k := range []Kind{KStr, KPath, KBytes, KInt, KFloat, KBool} {
		addMethod(k, "str", commonText("str", false))
		addMethod(k, "display", commonText("display", true))
	}
}

// commonTap calls f(recv) for its effect and returns recv unchanged.
func commonTap(name string) Method {
	return func(env Env, recv Value, a Args) (Value, error) {
		f, err := mFunc(name, a)
		if err != nil {
			return nil, err
		}
		if _, err := env.Call(f, recv); err != nil {
			return nil, err
		}
		return recv, nil
	}
}

func commonJSON(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("json", a); err != nil {
		return nil, err
	}
	b, err := JSONText(recv, false)
	if err != nil {
		return nil, err
	}
	return Str(b), nil
}

// commonText converts to str. Paths and bytes must be valid UTF-8 for str;
// display decodes them lossily instead.
func commonText(name string, lossy bool) Method {
	return func(_ Env, recv Value, a Args) (Value, error) {
		if err := mNoArgs(name, a); err != nil {
			return nil, err
		}
		switch x := recv.(type) {
		case Str:
			return x, nil
		case Int:
			return Str(strconv.FormatInt(int64(x), 10)), nil
		case Bool:
			return Str(strconv.FormatBool(bool(x))), nil
		case Float:
			return Str(Inline(x)), nil
		case Path:
			return mDecodeText(name, "path", string(x), lossy)
		case Bytes:
			return mDecodeText(name, "bytes", string(x), lossy)
		}
		return nil, mTypeErr("%s has no .%s()", TypeName(recv), name).
			WithHint(`interpolate it instead: "{x}"`)
	}
}

func mDecodeText(_, kind, s string, lossy bool) (Value, error) {
	if utf8.ValidString(s) {
		return Str(s), nil
	}
	if lossy {
		return Str(strings.ToValidUTF8(s, "\uFFFD")), nil
	}
	return nil, Errorf(CodeUTF8, "%s is not valid UTF-8", kind).
		WithHint("use .display() to decode lossily")
}
