package value

import "time"

// Stream methods: `.stream()` on finite values, the lazy combinators and
// the sinks that need nothing from the host. Sinks with effects (save,
// append, into, render) and the collect-then-dispatch fallthrough live in
// the evaluator.

func registerStreamMethods() {
	for _, k := range []Kind{KList, KTable, KRange, KStr, KBytes} {
		addMethod(k, "stream", toStream)
	}
	addMethod(KStream, "stream", func(_ Env, recv Value, a Args) (Value, error) {
		return recv, mNoArgs("stream", a)
	})
	addMethod(KStream, "map", stMap)
	mRegister(KStream, stWhere, "where", "filter")
	addMethod(KStream, "scan", stScan)
	addMethod(KStream, "flat_map", stFlatMap)
	addMethod(KStream, "take", stTake)
	addMethod(KStream, "skip", stSkip)
	addMethod(KStream, "take_until", stTakeUntil)
	addMethod(KStream, "dedupe", stDedupe("dedupe", false))
	addMethod(KStream, "distinct", stDedupe("distinct", true))
	addMethod(KStream, "throttle", stThrottle)
	addMethod(KStream, "debounce", stDebounce)
	addMethod(KStream, "window", stWindow)
	addMethod(KStream, "buffer", stBuffer)
	addMethod(KStream, "enumerate", stEnumerate)
	addMethod(KStream, "merge", stMerge)
	addMethod(KStream, "zip", stZip)
	addMethod(KStream, "collect", stCollect)
	addMethod(KStream, "each", stEach)
	addMethod(KStream, "tee", stTee)
}

func toStream(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("stream", a); err != nil {
		return nil, err
	}
	s, ok := StreamOf(recv)
	if !ok {
		return nil, mTypeErr("cannot stream %s", TypeName(recv))
	}
	return s, nil
}

// AsStream checks a stream receiver: a stream handle decoded from the wire has
// the stream kind but no source behind it.
func AsStream(recv Value) (*Stream, error) {
	s, ok := recv.(*Stream)
	if !ok {
		return nil, mTypeErr("this %s is a detached descriptor, not a live stream", TypeName(recv))
	}
	return s, nil
}

// stage takes recv's source and wraps it with mk, keeping boundedness.
func stage(recv Value, bounded func(bool) bool, mk func(up Source) Source) (Value, error) {
	s, err := AsStream(recv)
	if err != nil {
		return nil, err
	}
	up, err := s.Take()
	if err != nil {
		return nil, err
	}
	b := s.Bounded
	if bounded != nil {
		b = bounded(b)
	}
	return NewStream(s.Label, b, mk(up)), nil
}

func stMap(_ Env, recv Value, a Args) (Value, error) {
	f, err := mFunc("map", a)
	if err != nil {
		return nil, err
	}
	return stage(recv, nil, func(up Source) Source { return &mapStage{up: up, f: f} })
}

func stWhere(_ Env, recv Value, a Args) (Value, error) {
	f, err := mFunc("where", a)
	if err != nil {
		return nil, err
	}
	return stage(recv, nil, func(up Source) Source { return &whereStage{up: up, f: f, name: "where"} })
}

func stScan(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("scan", a, 2, 2, "an initial value and a function"); err != nil {
		return nil, err
	}
	init, f := a.Pos[0], a.Pos[1]
	return stage(recv, nil, func(up Source) Source { return &scanStage{up: up, acc: init, f: f} })
}

func stFlatMap(_ Env, recv Value, a Args) (Value, error) {
	f, err := mFunc("flat_map", a)
	if err != nil {
		return nil, err
	}
	return stage(recv, nil, func(up Source) Source { return &flatMapStage{up: up, f: f} })
}

func stTake(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("take", a, 1, 1, "a count"); err != nil {
		return nil, err
	}
	n, err := mCount("take", a.Pos[0])
	if err != nil {
		return nil, err
	}
	always := func(bool) bool { return true }
	return stage(recv, always, func(up Source) Source { return &takeStage{up: up, n: n} })
}

func stSkip(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("skip", a, 1, 1, "a count"); err != nil {
		return nil, err
	}
	n, err := mCount("skip", a.Pos[0])
	if err != nil {
		return nil, err
	}
	return stage(recv, nil, func(up Source) Source { return &skipStage{up: up, n: n} })
}

func stTakeUntil(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("take_until", a, 1, 1, "a predicate or a signal stream"); err != nil {
		return nil, err
	}
	if sig, ok := a.Pos[0].(*Stream); ok {
		if sig == recv {
			return nil, mArgErr("take_until cannot use a stream as its own signal")
		}
		ss, err := sig.Take()
		if err != nil {
			return nil, err
		}
		return stage(recv, nil, func(up Source) Source { return &untilStage{up: up, signal: ss} })
	}
	f := a.Pos[0]
	return stage(recv, nil, func(up Source) Source { return &untilStage{up: up, pred: f} })
}

// stDedupe drops adjacent duplicates, or with all every repeat.
func stDedupe(name string, all bool) Method {
	return func(_ Env, recv Value, a Args) (Value, error) {
		if err := mNoArgs(name, a); err != nil {
			return nil, err
		}
		return stage(recv, nil, func(up Source) Source { return &dedupeStage{up: up, all: all} })
	}
}

// stDuration reads a non-negative duration argument.
func stDuration(name string, v Value) (time.Duration, error) {
	d, ok := v.(Duration)
	if !ok {
		return 0, mTypeErr("%s expects a duration, got %s", name, TypeName(v))
	}
	if d < 0 {
		return 0, mArgErr("%s expects a non-negative duration", name)
	}
	return time.Duration(d), nil
}

func stThrottle(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("throttle", a, 1, 1, "a duration"); err != nil {
		return nil, err
	}
	d, err := stDuration("throttle", a.Pos[0])
	if err != nil {
		return nil, err
	}
	return stage(recv, nil, func(up Source) Source { return &throttleStage{up: up, d: d} })
}

func stDebounce(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("debounce", a, 1, 1, "a duration"); err != nil {
		return nil, err
	}
	d, err := stDuration("debounce", a.Pos[0])
	if err != nil {
		return nil, err
	}
	return stage(recv, nil, func(up Source) Source { return &debounceStage{up: up, d: d} })
}

func stWindow(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("window", a, 1, 1, "a count or a duration"); err != nil {
		return nil, err
	}
	switch x := a.Pos[0].(type) {
	case Int:
		if x <= 0 {
			return nil, mArgErr("window count must be positive, got %d", int64(x))
		}
		n, err := mCount("window", x)
		if err != nil {
			return nil, err
		}
		return stage(recv, nil, func(up Source) Source { return &windowStage{up: up, n: n} })
	case Duration:
		if x <= 0 {
			return nil, mArgErr("window duration must be positive")
		}
		return stage(recv, nil, func(up Source) Source { return &windowStage{up: up, d: time.Duration(x)} })
	}
	return nil, mTypeErr("window expects a count or a duration, got %s", TypeName(a.Pos[0]))
}

// stBuffer is an identity stage: pulls are synchronous, so there is no
// producer to run ahead. It still validates its capacity.
func stBuffer(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("buffer", a, 0, 1, "a capacity"); err != nil {
		return nil, err
	}
	if len(a.Pos) == 1 {
		if _, err := mCount("buffer", a.Pos[0]); err != nil {
			return nil, err
		}
	}
	return stage(recv, nil, func(up Source) Source { return up })
}

func stEnumerate(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("enumerate", a); err != nil {
		return nil, err
	}
	return stage(recv, nil, func(up Source) Source { return &enumerateStage{up: up} })
}

// otherStream reads the stream argument of merge and zip.
func otherStream(name string, recv Value, a Args) (*Stream, Source, error) {
	if err := mArity(name, a, 1, 1, "another stream"); err != nil {
		return nil, nil, err
	}
	o, ok := a.Pos[0].(*Stream)
	if !ok {
		return nil, nil, mTypeErr("%s expects a stream, got %s", name, TypeName(a.Pos[0])).
			WithHint("turn a collection into one with .stream()")
	}
	if o == recv {
		return nil, nil, mArgErr("%s cannot combine a stream with itself", name)
	}
	src, err := o.Take()
	return o, src, err
}

func stMerge(_ Env, recv Value, a Args) (Value, error) {
	o, b, err := otherStream("merge", recv, a)
	if err != nil {
		return nil, err
	}
	v, err := stage(recv, func(x bool) bool { return x && o.Bounded },
		func(up Source) Source { return &mergeStage{a: up, b: b} })
	if err != nil {
		b.Close()
	}
	return v, err
}

func stZip(_ Env, recv Value, a Args) (Value, error) {
	o, b, err := otherStream("zip", recv, a)
	if err != nil {
		return nil, err
	}
	v, err := stage(recv, func(x bool) bool { return x || o.Bounded },
		func(up Source) Source { return &zipStage{a: up, b: b} })
	if err != nil {
		b.Close()
	}
	return v, err
}

func stCollect(env Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("collect", a); err != nil {
		return nil, err
	}
	s, err := AsStream(recv)
	if err != nil {
		return nil, err
	}
	return CollectStream(env, s)
}

func stEach(env Env, recv Value, a Args) (Value, error) {
	f, err := mFunc("each", a)
	if err != nil {
		return nil, err
	}
	s, err := AsStream(recv)
	if err != nil {
		return nil, err
	}
	err = DriveStream(env, s, func(v Value) (bool, error) {
		return false, CallForEffect(env, f, v)
	})
	if err != nil {
		return nil, err
	}
	return Nil, nil
}

func stTee(env Env, recv Value, a Args) (Value, error) {
	if err := mArity("tee", a, 0, 1, "a fork count"); err != nil {
		return nil, err
	}
	n := 2
	if len(a.Pos) == 1 {
		c, ok := a.Pos[0].(Int)
		if !ok {
			return nil, mTypeErr("tee expects an int fork count, got %s", TypeName(a.Pos[0]))
		}
		if c < 1 || c > MaxTee {
			return nil, mArgErr("tee needs between 1 and %d forks, got %d", MaxTee, int64(c))
		}
		n = int(c)
	}
	s, err := AsStream(recv)
	if err != nil {
		return nil, err
	}
	forks, err := Tee(env, s, n)
	if err != nil {
		return nil, err
	}
	items := make([]Value, len(forks))
	for i, f := range forks {
		items[i] = f
	}
	return &List{Items: items}, nil
}
