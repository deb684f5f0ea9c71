package value

import (
	"sort"
	"sync"
)

// Method implements `recv.name(args)` for one receiver kind.
type Method func(env Env, recv Value, args Args) (Value, error)

// methods is every kind's methods, filled by registerMethods through
// addMethod the first time methodTable is asked for it, not by package
// initialisation at every start of every binary that links value.
var (
	methods     [numKinds]map[string]Method
	methodsOnce sync.Once
)

// methodTable is methods, registered on first use.
func methodTable() *[numKinds]map[string]Method {
	methodsOnce.Do(registerMethods)
	return &methods
}

// registerMethods registers the methods of every kind (methods_*.go).
func registerMethods() {
	registerCommonMethods()
	registerListMethods()
	registerNumMethods()
	registerRecordMethods()
	registerStrMethods()
	registerStreamMethods()
	registerTableMethods()
	registerUnitMethods()
}

// addMethod installs a method for a receiver kind while registerMethods
// runs; registering the same name twice panics.
func addMethod(k Kind, name string, m Method) {
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
	m, ok := methodTable()[k][name]
	return m, ok
}

// MethodNames lists the methods of kind k, sorted (for suggestions and
// completion).
func MethodNames(k Kind) []string {
	if k >= numKinds {
		return nil
	}
	t := methodTable()
	names := make([]string, 0, len(t[k]))
	for n := range t[k] {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
