package nav

// pwd: the working directory as a path, beside the commands that move it.

import (
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/value"
)

func registerPwd(p *eval.Part) {
	p.Builtin(&eval.Builtin{Name: "pwd", Help: eval.Help{Summary: "the working directory, as a path", Usage: "pwd", Example: "pwd\npwd.name"}, Run: pwd, Bare: true, Effects: eval.EffNone})
}

func pwd(c *eval.BuiltinCall) (value.Value, error) { return value.Path(c.Dir()), nil }
