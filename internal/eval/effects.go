package eval

// Effect declarations shared by several registry entries. Each entry of
// the registry (registry.go) names its own; these are the common shapes.
// leash.Derive reaches them through the Registry in its Env, so evaluation
// and plan derivation read one table.

import (
	"strings"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

// Flag declarations shared by several builtins.
var (
	flagAll       = leash.FlagSpec{Long: "all", Short: "a"}
	flagRecursive = leash.FlagSpec{Long: "recursive", Short: "rR"}
)

// EffNone declares a builtin that touches nothing outside the evaluator.
func EffNone(*leash.Deriver) {}

// effClock declares a read of the wall clock.
func effClock(d *leash.Deriver) { d.Clock() }

// effReads declares an fs_read of every positional path.
func effReads(d *leash.Deriver) { d.PathArgs(host.FSRead, leash.Reversible) }

// effOpaque declares behaviour derivation cannot bound.
func effOpaque(note string) func(*leash.Deriver) {
	return func(d *leash.Deriver) { d.Opaque(note) }
}

// effLs: the positional paths, or the working directory.
func effLs(d *leash.Deriver) {
	if !d.PathArgs(host.FSRead, leash.Reversible) {
		d.PathText(".", host.FSRead, leash.Reversible)
	}
}

// effHead: head PATH [COUNT] reads its first argument.
func effHead(d *leash.Deriver) {
	if ps := d.Positional(); len(ps) > 0 {
		d.Path(ps[0], host.FSRead, leash.Reversible)
	}
}

// effMkdir: without --parents mkdir checks that each target is absent and
// its parent a directory (with it the host's mkdir-all does that).
func effMkdir(d *leash.Deriver) {
	if !d.Flag("parents") {
		d.PathArgs(host.FSRead, leash.Reversible)
		for _, a := range d.Positional() {
			d.Parent(a)
		}
	}
	d.PathArgs(host.FSWrite, leash.Irreversible)
}

// effTouch: touch checks whether each target exists, then writes it.
func effTouch(d *leash.Deriver) {
	d.PathArgs(host.FSRead, leash.Reversible)
	d.PathArgs(host.FSWrite, leash.Irreversible)
}

// effRm: rm checks every target before removing any; without --permanent
// it moves them into the trash, which it writes.
func effRm(d *leash.Deriver) {
	d.PathArgs(host.FSRead, leash.Reversible)
	if d.Flag("permanent") {
		d.PathArgs(host.FSDelete, leash.Irreversible)
		return
	}
	d.PathArgs(host.FSDelete, leash.Conditional)
	d.Trash()
}

// effOpen: open stats the path, finds the opener on PATH and spawns it.
func effOpen(d *leash.Deriver) {
	d.PathArgs(host.FSRead, leash.Reversible)
	d.Add(leash.Effect{Kind: host.EnvRead, Name: "PATH"}, leash.Reversible)
	d.Add(leash.Effect{Kind: host.ProcSpawn, Program: bfsOpener(), Argv: []string{bfsOpener(), "(…)"}}, leash.Irreversible)
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

// effSaveCall: save(path, value) writes its first argument.
func effSaveCall(d *leash.Deriver) {
	if args := d.Args(); len(args) > 0 {
		d.ExprPath(args[0].Value, host.FSWrite, leash.Conditional)
	}
}

// effSaveMethod: VALUE.save(PATH) and .append(PATH) write their argument.
func effSaveMethod(d *leash.Deriver) {
	if args := d.Args(); !d.Field() && len(args) > 0 {
		d.ExprPath(args[0].Value, host.FSWrite, leash.Conditional)
	}
}

// effReadsReceiver: a path method that reads the file system at its
// receiver (on a receiver of unknown type, when called).
func effReadsReceiver(d *leash.Deriver) { d.ReceiverRead() }

// effReadsPathReceiver: a path method that reads the file system at its
// receiver when the receiver is known to be a path. `.size` is counted
// so: on a receiver of unknown type plans have always taken it for a
// record's size field (a row of ls), not a read.
func effReadsPathReceiver(d *leash.Deriver) { d.ReceiverReadTyped() }
