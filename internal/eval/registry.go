package eval

import (
	"sync"

	"github.com/shoalgo/shoal/internal/value"
)

// The registry of builtin commands, value functions and host methods is
// filled the first time something looks a name up, not by package
// initialisation: every binary that links eval (shoal, shoal-kernel and
// its sandbox trampoline) would otherwise build it at every start, and
// `shoal -c 1` looks nothing up. Code reads the tables only through
// builtinMap, funcMap and hostMethodMap; RegisterBuiltin, registerFunc
// and RegisterHostMethod write them while registerAll runs.
var registryOnce sync.Once

// registerAll runs every file's registrations, in file order.
func registerAll() {
	registerBuiltinCore()
	registerBuiltinFsNav()
	registerBuiltinFsOpen()
	registerBuiltinFsPath()
	registerBuiltinFsRead()
	registerBuiltinFsRm()
	registerBuiltinFsWrite()
	registerBuiltinInteract()
	registerBuiltinReef()
	registerFuncs()
	registerHelp()
	registerHostfs()
	registerJournal()
	registerJump()
	registerPick()
	registerPlans()
	registerStreams()
	registerStreamsFs()
	registerTask1()
	registerTask2()
}

// builtinMap is the builtin commands by name.
func builtinMap() map[string]*Builtin {
	registryOnce.Do(registerAll)
	return builtins
}

// funcMap is the value functions by name.
func funcMap() map[string]*Func {
	registryOnce.Do(registerAll)
	return valueFuncs
}

// hostMethodMap is the host methods by receiver kind (anyKind: every
// kind) and name.
func hostMethodMap() map[value.Kind]map[string]HostMethod {
	registryOnce.Do(registerAll)
	return hostMethods
}
