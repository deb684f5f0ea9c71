package leash

import (
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
)

// DynamicArg stands in an Argv for an argument known only at run time.
const DynamicArg = dynamicArg

// Adapted is what derivation knows of a command a command adapter
// declares (Env.Adapter): the program it starts with the pinned argv, and
// the effects its declaration promises with the call's arguments
// substituted. Refused, when set, is why the call fails its declaration
// before anything starts (an undeclared flag, a mistyped value).
type Adapted struct {
	Program string
	Argv    []string // the whole argv, Program first; DynamicArg for words known only at run time
	Effects []AdaptedEffect
	Refused string
	// Pass, when set, is why the call passes through to the program
	// unmodelled (a flag its adapter does not declare): the argv is the
	// words as written and the effects are every one the declaration
	// names, unbound targets known only at run time.
	Pass string
}

// AdaptedEffect is one declared effect. Target is a path text for file
// effects (relative to the working directory as derivation knows it),
// host:port for net_connect, a variable name for env effects and a
// program for proc_spawn. Dynamic marks a target known only at run time.
type AdaptedEffect struct {
	Kind    host.Effect
	Target  string
	Dynamic bool
}

// StaticWord is the text a command word passes when it is known without
// running anything (a word, a path, a literal string).
func StaticWord(a *syntax.CmdArg) (string, bool) { return staticWord(a) }

// adapted records an adapted command: nothing but a note when its
// declaration refuses the call, else the PATH lookup, the spawn of the
// pinned argv and every declared effect.
func (w *walker) adapted(name string, ad Adapted) {
	if ad.Refused != "" {
		w.note(name + " is refused before it starts: " + ad.Refused)
		return
	}
	if ad.Pass != "" {
		w.note(name + " passes through to the program as written: " + ad.Pass)
	}
	w.add(Effect{Kind: host.EnvRead, Name: "PATH"}, Reversible)
	w.add(Effect{Kind: host.ProcSpawn, Program: ad.Program, Argv: ad.Argv}, Irreversible)
	for _, e := range ad.Effects {
		rev := Irreversible
		if e.Kind == host.FSRead || e.Kind == host.EnvRead {
			rev = Reversible
		}
		switch e.Kind {
		case host.FSRead, host.FSWrite, host.FSDelete:
			if e.Dynamic {
				w.dynamicFS(e.Kind, name+" "+e.Target, rev)
			} else {
				w.fsEffect(e.Kind, e.Target, rev)
			}
		case host.ProcSpawn:
			w.add(Effect{Kind: host.ProcSpawn, Program: e.Target, Dynamic: true}, Irreversible)
			w.note(name + " may start " + e.Target + ", which its adapter cannot name")
		default:
			w.add(Effect{Kind: e.Kind, Name: e.Target, Dynamic: e.Dynamic}, rev)
			if e.Dynamic {
				w.note(string(e.Kind) + " of " + e.Target + ", known only at run time (" + name + ")")
			}
		}
	}
}
