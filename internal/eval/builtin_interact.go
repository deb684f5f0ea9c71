package eval

// interact: run a program in the foreground of the interactive terminal,
// whatever the position, with its flags passed as written.

import (
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

func registerBuiltinInteract(p *Part) {
	p.Builtin(&Builtin{Name: "interact", Help: Help{Summary: "run a program with the terminal, in any position, its flags untouched", Usage: "interact PROGRAM [ARG...]", Example: "interact vim notes.md\n(interact sh -c \"exit 3\").status"}, Run: runInteract, Bare: true, Quiet: true, Verbatim: true,
		Effects: func(d *leash.Deriver) { d.SpawnWords(d.Command().Args) }})
}

// codeNoTerminal: interact was asked for where there is no interactive
// terminal (a script, -c, the kernel).
const codeNoTerminal = value.CodeNoTerminal

// runInteract runs `interact PROGRAM ARGS...` in the terminal's
// foreground and returns its outcome (status only: the output went to the
// terminal).
func runInteract(c *BuiltinCall) (value.Value, error) {
	if len(c.Args) == 0 {
		return nil, errorf(codeArg, "interact needs a command").WithHint("interact top")
	}
	tty := c.t.in.opts.Terminal
	if tty == nil {
		return nil, errorf(codeNoTerminal, "interact needs an interactive terminal").
			WithHint("run it from the shoal REPL: a script, -c or the kernel has no terminal to give it")
	}
	argv, err := argTexts(c.Args)
	if err != nil {
		return nil, err
	}
	prog, err := c.t.host.LookPath(c.t.ctx, argv[0], c.t.env)
	if err != nil {
		if gateStop(err) {
			return nil, hostError(err)
		}
		return nil, errorf(codeNotFound, "command not found: %s", argv[0])
	}
	spawn := &host.Spawn{Argv: append([]string{prog}, argv[1:]...), Dir: c.t.dir, Env: c.t.env}
	return c.t.runOnTerminal(argv[0], argv[1:], spawn, int(tty.Fd()), modeValue, nil)
}
