package value

// Record methods. Records are immutable: set and merge return new records,
// keeping existing key positions and appending new keys.

func registerRecordMethods() {
	mRegister(KRecord, recLen, "len", "count")
	mRegister(KRecord, recIsEmpty, "is_empty")
	mRegister(KRecord, recKeys, "keys")
	mRegister(KRecord, recValues, "values")
	mRegister(KRecord, recItems, "items")
	mRegister(KRecord, recSet, "set")
	mRegister(KRecord, recMerge, "merge")
	mRegister(KRecord, recGet, "get")
	mRegister(KRecord, recContains, "contains")
}

func recLen(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("len", a); err != nil {
		return nil, err
	}
	return Int(recv.(*Record).Len()), nil
}

func recIsEmpty(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("is_empty", a); err != nil {
		return nil, err
	}
	return Bool(recv.(*Record).Len() == 0), nil
}

func recKeys(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("keys", a); err != nil {
		return nil, err
	}
	return mStrList(recv.(*Record).Keys()), nil
}

func recValues(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("values", a); err != nil {
		return nil, err
	}
	return NewList(append([]Value{}, recv.(*Record).Values()...)), nil
}

func recItems(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoArgs("items", a); err != nil {
		return nil, err
	}
	r := recv.(*Record)
	out := make([]Value, r.Len())
	for i, k := range r.Keys() {
		out[i] = NewList([]Value{Str(k), r.Values()[i]})
	}
	return NewList(out), nil
}

// mKeyArg reads a record key argument.
func mKeyArg(name string, v Value) (string, error) {
	k, ok := v.(Str)
	if !ok {
		return "", mTypeErr("record %s expects a str key, got %s", name, TypeName(v))
	}
	return string(k), nil
}

func recSet(_ Env, recv Value, a Args) (Value, error) {
	if err := mNoNamed("set", a); err != nil {
		return nil, err
	}
	switch len(a.Pos) {
	case 0:
		return nil, mArgErr("set requires a key and a value").WithHint(`r.set("name", value)`)
	case 1:
		return nil, mArgErr("set requires a value after the key").WithHint(`r.set("name", value)`)
	case 2:
	default:
		return nil, mArgErr("set takes 2 arguments, got %d", len(a.Pos))
	}
	k, err := mKeyArg("set", a.Pos[0])
	if err != nil {
		return nil, err
	}
	return recv.(*Record).With(k, a.Pos[1]), nil
}

func recMerge(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("merge", a, 1, 1, "another record"); err != nil {
		return nil, err
	}
	other, ok := a.Pos[0].(*Record)
	if !ok {
		return nil, mTypeErr("merge expects a record, got %s", TypeName(a.Pos[0]))
	}
	r := recv.(*Record)
	keys := append(append(make([]string, 0, r.Len()+other.Len()), r.keys...), other.keys...)
	vals := append(append(make([]Value, 0, r.Len()+other.Len()), r.vals...), other.vals...)
	return NewRecord(keys, vals), nil // later fields replace earlier ones in place
}

func recGet(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("get", a, 1, 2, "a key"); err != nil {
		return nil, err
	}
	k, err := mKeyArg("get", a.Pos[0])
	if err != nil {
		return nil, err
	}
	if v, ok := recv.(*Record).Get(k); ok {
		return v, nil
	}
	if len(a.Pos) == 2 {
		return a.Pos[1], nil
	}
	return Nil, nil
}

func recContains(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("contains", a, 1, 1, "a key"); err != nil {
		return nil, err
	}
	k, err := mKeyArg("contains", a.Pos[0])
	if err != nil {
		return nil, err
	}
	_, ok := recv.(*Record).Get(k)
	return Bool(ok), nil
}
