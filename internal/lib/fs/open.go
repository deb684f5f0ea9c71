package fs

// open: hand a file to the desktop opener.

import (
	"runtime"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

func registerOpen(p *eval.Part) {
	p.Builtin(&eval.Builtin{Name: "open", Help: eval.Help{Summary: "open a file with the desktop's default application", Usage: "open PATH", Example: "open README.md"}, Run: bfsOpen, Bare: true, Effects: effOpen})
}

// effOpen: open stats the path, finds the opener on PATH and spawns it.
func effOpen(d *leash.Deriver) {
	d.PathArgs(host.FSRead, leash.Reversible)
	d.Add(leash.Effect{Kind: host.EnvRead, Name: "PATH"}, leash.Reversible)
	d.Add(leash.Effect{Kind: host.ProcSpawn, Program: bfsOpener(), Argv: []string{bfsOpener(), "(…)"}}, leash.Irreversible)
}

// bfsOpener is the platform's opener program.
func bfsOpener() string {
	if runtime.GOOS == "darwin" {
		return "open"
	}
	return "xdg-open"
}

// bfsOpen runs the platform opener (xdg-open, or open on macOS) on one
// existing path and returns null. It is a host interaction, not a read:
// use path.read for content.
func bfsOpen(c *eval.BuiltinCall) (value.Value, error) {
	if len(c.Args) != 1 {
		return nil, c.Errorf(bfsArgError, "needs exactly one path").WithHint("open PATH")
	}
	p, err := c.PathText(c.Args[0])
	if err != nil {
		return nil, err
	}
	abs := c.Abs(p)
	if _, err := c.Host().Stat(c.Ctx(), abs); err != nil {
		return nil, c.FileError(p, err)
	}
	opener := bfsOpener()
	prog, err := c.Host().LookPath(c.Ctx(), opener, c.Environ())
	if err != nil {
		if eval.PassThrough(err) {
			return nil, err
		}
		return nil, c.Errorf(bfsCustom, "no opener available: %s not found", opener).
			WithHint("read the file with path.read, or open it with a specific program")
	}
	c.UndoLose("a program ran")
	res, err := c.Host().Run(c.Ctx(), &host.Spawn{Argv: []string{prog, abs}, Dir: c.Dir(), Env: c.Environ()})
	if err != nil {
		return nil, c.FileError(p, err)
	}
	if res.Status == nil || *res.Status != 0 {
		return nil, c.Errorf(bfsCustom, "%s could not open %s", opener, p)
	}
	return value.Nil, nil
}
