package eval

// Effect declarations shared by several registry entries. Each entry of
// the registry (registry.go) names its own; these are the common shapes.
// leash.Derive reaches them through the Registry in its Env, so evaluation
// and plan derivation read one table.

import (
	"strings"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

// Flag declarations shared by several builtins.
var (
	flagAll = leash.FlagSpec{Long: "all", Short: "a"}
)

// EffNone declares a builtin that touches nothing outside the evaluator.
func EffNone(*leash.Deriver) {}

// effClock declares a read of the wall clock.
func effClock(d *leash.Deriver) { d.Clock() }

// effOpaque declares behaviour derivation cannot bound.
func effOpaque(note string) func(*leash.Deriver) {
	return func(d *leash.Deriver) { d.Opaque(note) }
}

// effKill: `kill %N…` cancels tasks; any other command line runs the kill
// program.
func effKill(d *leash.Deriver) {
	args := d.Command().Args
	for _, a := range args {
		if a.Kind != syntax.ArgWord || !strings.HasPrefix(a.Text, "%") {
			d.External("kill", args)
			return
		}
	}
}
