package nav_test

import (
	"testing"

	"github.com/shoalgo/shoal/internal/lib/nav"
	"github.com/shoalgo/shoal/internal/libtest"
)

// gateBuiltins has deny-all cases for every builtin nav registers, by
// name (libtest.GateCase says what each must show).
var gateBuiltins = map[string][]libtest.GateCase{
	"pwd":   {{Src: "pwd"}},
	"dirs":  {{Src: "dirs"}},
	"popd":  {{Src: "popd", Code: "custom"}},
	"cd":    {{Src: "cd sub", Denied: true}, {Src: "cd", Denied: true}},
	"pushd": {{Src: "pushd sub", Denied: true}, {Src: "pushd", Code: "custom"}},
	"jump":  {{Src: "jump sub", Denied: true}, {Src: `jump "a" "b"`, Code: "arg_error"}, {Src: "jump", Code: "not_found"}},
	"j":     {{Src: "j sub", Denied: true}},
}

func TestGateDenyAll(t *testing.T) {
	libtest.RunGate(t, nav.Part(), libtest.GateCases{Builtins: gateBuiltins},
		map[string]string{"a.txt": "hello", "sub/x.txt": "x"})
}
