package value

import "time"

// Methods on the quantity and temporal scalars, bytes and globs. Size,
// duration, datetime and time deliberately have no .str(): interpolate
// them for presentation. Their fields (d.year, 3s.ago) are zero-argument
// methods the evaluator falls back to on field access.

func registerUnitMethods() {
	mRegister(KBytes, bytesLen, "len", "count")
	mRegister(KBytes, bytesIsEmpty, "is_empty")

	for name, get := range map[string]func(time.Time) int{
		"year":   time.Time.Year,
		"month":  func(t time.Time) int { return int(t.Month()) },
		"day":    time.Time.Day,
		"hour":   time.Time.Hour,
		"minute": time.Time.Minute,
		"second": time.Time.Second,
	} {
		addMethod(KDateTime, name, dtField(name, get))
	}

	for name, unit := range map[string]time.Duration{
		"hour":   time.Hour,
		"minute": time.Minute,
		"second": time.Second,
	} {
		addMethod(KTime, name, todField(name, unit))
	}

	addMethod(KDuration, "ago", durRelative("ago", -1))
	addMethod(KDuration, "from_now", durRelative("from_now", +1))

	addMethod(KGlob, "pattern", globPattern)
}

func bytesLen(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("len", a); err != nil {
		return nil, err
	}
	return Int(len(recv.(Bytes))), nil
}

func bytesIsEmpty(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("is_empty", a); err != nil {
		return nil, err
	}
	return Bool(len(recv.(Bytes)) == 0), nil
}

// dtField reads a calendar component in the datetime's own zone.
func dtField(name string, get func(time.Time) int) Method {
	return func(_ Env, recv Value, a Args) (Value, error) {
		if err := mNoArgs(name, a); err != nil {
			return nil, err
		}
		return Int(get(recv.(DateTime).T)), nil
	}
}

// todField reads a component of a time of day.
func todField(name string, unit time.Duration) Method {
	return func(_ Env, recv Value, a Args) (Value, error) {
		if err := mNoArgs(name, a); err != nil {
			return nil, err
		}
		ns := time.Duration(recv.(Time))
		var n int64
		switch unit {
		case time.Hour:
			n = int64(ns / time.Hour)
		case time.Minute:
			n = int64(ns % time.Hour / time.Minute)
		default:
			n = int64(ns % time.Minute / time.Second)
		}
		return Int(n), nil
	}
}

// durRelative anchors a duration at the evaluation clock: sign -1 is
// `ago`, +1 is `from_now`.
func durRelative(name string, sign int) Method {
	return func(env Env, recv Value, a Args) (Value, error) {
		if err := mNoArgs(name, a); err != nil {
			return nil, err
		}
		d := time.Duration(recv.(Duration))
		if sign < 0 {
			if d == time.Duration(-1<<63) {
				return nil, Errorf(CodeOverflow, "duration overflow in %s", name)
			}
			d = -d
		}
		now, err := env.Clock()
		if err != nil {
			return nil, err
		}
		t := now.Add(d)
		if (d > 0 && !t.After(now)) || (d < 0 && !t.Before(now)) {
			return nil, Errorf(CodeOverflow, "datetime overflow in %s", name)
		}
		return DateTime{T: t}, nil
	}
}

func globPattern(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("pattern", a); err != nil {
		return nil, err
	}
	return Str(recv.(*Glob).Pattern), nil
}
