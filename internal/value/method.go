package value

import "sort"

// Method implements `recv.name(args)` for one receiver kind.
type Method func(env Env, recv Value, args Args) (Value, error)

var methods [numKinds]map[string]Method

// RegisterMethod installs a method for a receiver kind. It is meant for
// package initialisation; registering the same name twice panics.
func RegisterMethod(k Kind, name string, m Method) {
	if methods[k] == nil {
		methods[k] = map[string]Method{}
	}
	if _, dup := methods[k][name]; dup {
		panic("value: method registered twice: " + k.String() + "." + name)
	}
	methods[k][name] = m
}

// LookupMethod finds the method name for receiver kind k.
func LookupMethod(k Kind, name string) (Method, bool) {
	if k >= numKinds {
		return nil, false
	}
	m, ok := methods[k][name]
	return m, ok
}

// MethodNames lists the methods of kind k, sorted (for suggestions and
// completion).
func MethodNames(k Kind) []string {
	if k >= numKinds {
		return nil
	}
	names := make([]string, 0, len(methods[k]))
	for n := range methods[k] {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
