package eval

// pwd: the working directory as a path. It only reads the thread's
// directory, so it stays with the language; the commands that move it
// (cd, pushd, popd, dirs, jump) are internal/lib/nav.

import "github.com/shoalgo/shoal/internal/value"

func registerBuiltinPwd(p *Part) {
	p.Builtin(&Builtin{Name: "pwd", Help: Help{Summary: "the working directory, as a path", Usage: "pwd", Example: "pwd\npwd.name"}, Run: bfsPwd, Bare: true, Effects: EffNone})
}

func bfsPwd(c *BuiltinCall) (value.Value, error) { return value.Path(c.Dir()), nil }
