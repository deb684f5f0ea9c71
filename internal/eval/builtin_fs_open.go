package eval

// open: hand a file to the desktop opener.

import (
	"runtime"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

func registerBuiltinFsOpen(p *Part) {
	p.Builtin(&Builtin{Name: "open", Help: Help{Summary: "open a file with the desktop's default application", Usage: "open PATH", Example: "open README.md"}, Run: bfsOpen, Bare: true, Effects: effOpen})
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
func bfsOpen(c *BuiltinCall) (value.Value, error) {
	if len(c.Args) != 1 {
		return nil, c.Errorf(bfsArgError, "needs exactly one path").WithHint("open PATH")
	}
	p, err := c.PathText(c.Args[0])
	if err != nil {
		return nil, err
	}
	abs := c.Abs(p)
	if _, err := c.Host().Stat(c.Ctx(), abs); err != nil {
		return nil, bfsFail(c, p, err)
	}
	opener := bfsOpener()
	prog, err := c.Host().LookPath(c.Ctx(), opener, c.Environ())
	if err != nil {
		if PassThrough(err) {
			return nil, err
		}
		return nil, c.Errorf(bfsCustom, "no opener available: %s not found", opener).
			WithHint("read the file with path.read, or open it with a specific program")
	}
	undoLose(c.Ctx(), "a program ran")
	res, err := c.Host().Run(c.Ctx(), &host.Spawn{Argv: []string{prog, abs}, Dir: c.Dir(), Env: c.Environ()})
	if err != nil {
		return nil, bfsFail(c, p, err)
	}
	if res.Status == nil || *res.Status != 0 {
		return nil, c.Errorf(bfsCustom, "%s could not open %s", opener, p)
	}
	return value.Nil, nil
}
