package nav

// cd and the session directory stack (pushd, popd, dirs). They return
// their value directly rather than an outcome.

import (
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

func registerDirs(p *eval.Part) {
	p.Builtin(&eval.Builtin{Name: "cd", Help: eval.Help{Summary: "change the working directory (- for the previous one)", Usage: "cd [PATH | -]", Example: "cd src\ncd -\ncd ~"}, Run: cd, Bare: true, Session: true, SessionHint: cdHint, Quiet: true, Hidden: true,
		Effects: func(d *leash.Deriver) { d.Cd() }})
	p.Builtin(&eval.Builtin{Name: "pushd", Help: eval.Help{Summary: "change directory and push the old one on the directory stack", Usage: "pushd [PATH]", Example: "pushd /tmp\npopd"}, Run: pushd, Bare: true, Session: true, SessionHint: stackHint,
		Effects: func(d *leash.Deriver) { d.Pushd() }})
	p.Builtin(&eval.Builtin{Name: "popd", Help: eval.Help{Summary: "go back to the directory on top of the stack", Usage: "popd", Example: "pushd /tmp\npopd"}, Run: popd, Bare: true, Session: true, SessionHint: stackHint,
		Effects: func(d *leash.Deriver) { d.Popd() }})
	p.Builtin(&eval.Builtin{Name: "dirs", Help: eval.Help{Summary: "the directory stack, most recent first", Usage: "dirs", Example: "dirs"}, Run: dirs, Bare: true, Effects: eval.EffNone})
}

// cd changes directory: to PATH, to the previous directory with `-`,
// or home (falling back to /) with no argument.
func cd(c *eval.BuiltinCall) (value.Value, error) {
	var dir string
	switch {
	case len(c.Args) == 0:
		home, ok := c.Getenv("HOME")
		if !ok || home == "" {
			home = "/"
		}
		dir = c.Abs(home)
	case isDash(c.Args[0]):
		dir = c.OldDir()
		if dir == "" {
			return nil, c.Errorf(codeCustom, "no previous directory: OLDPWD is not set")
		}
	default:
		var err error
		if dir, err = targetDir(c, c.Args[0]); err != nil {
			return nil, err
		}
	}
	if err := checkDir(c, dir, dir); err != nil {
		return nil, err
	}
	c.Chdir(dir)
	return value.Path(dir), nil
}

// isDash reports whether v is the `-` argument of `cd -`.
func isDash(v value.Value) bool {
	s, ok := v.(value.Str)
	return ok && s == "-"
}

// targetDir resolves a navigation argument to an absolute path.
func targetDir(c *eval.BuiltinCall, v value.Value) (string, error) {
	p, err := c.PathText(v)
	if err != nil {
		return "", c.Errorf(codeArg, "needs a directory path, got %s", value.TypeName(v))
	}
	return c.Abs(p), nil
}

// checkDir requires abs to be an existing directory; shown names it in
// messages.
func checkDir(c *eval.BuiltinCall, abs, shown string) error {
	fi, err := c.Host().Stat(c.Ctx(), abs)
	if err != nil {
		if eval.PassThrough(err) {
			return err
		}
		return c.Errorf(codeArg, "%s: %s", shown, eval.OSReason(err))
	}
	if !fi.IsDir() {
		return c.Errorf(codeArg, "%s is not a directory", shown)
	}
	return nil
}

// stack is the current directory followed by the saved stack.
func stack(c *eval.BuiltinCall) *value.List {
	st := c.DirStack()
	items := make([]value.Value, 0, len(st)+1)
	items = append(items, value.Path(c.Dir()))
	for _, d := range st {
		items = append(items, value.Path(d))
	}
	return value.NewList(items)
}

// pushd enters PATH, saving the current directory on the stack; with
// no argument it swaps the current directory with the top of the stack.
func pushd(c *eval.BuiltinCall) (value.Value, error) {
	st := c.DirStack()
	if len(c.Args) == 0 {
		if len(st) == 0 {
			return nil, c.Errorf(codeCustom, "the directory stack is empty: nothing to swap with").
				WithHint("pushd DIR saves the current directory and enters DIR")
		}
		top := st[0]
		if err := checkDir(c, top, top); err != nil {
			return nil, err
		}
		next := append([]string{c.Dir()}, st[1:]...)
		c.Chdir(top)
		c.SetDirStack(next)
		return stack(c), nil
	}
	dir, err := targetDir(c, c.Args[0])
	if err != nil {
		return nil, err
	}
	if err := checkDir(c, dir, dir); err != nil {
		return nil, err
	}
	next := append([]string{c.Dir()}, st...)
	c.Chdir(dir)
	c.SetDirStack(next)
	return stack(c), nil
}

// popd leaves for the directory on top of the stack and drops it.
func popd(c *eval.BuiltinCall) (value.Value, error) {
	st := c.DirStack()
	if len(st) == 0 {
		return nil, c.Errorf(codeCustom, "the directory stack is empty").
			WithHint("pushd DIR saves the current directory first")
	}
	top := st[0]
	if err := checkDir(c, top, top); err != nil {
		return nil, err
	}
	c.Chdir(top)
	c.SetDirStack(append([]string(nil), st[1:]...))
	return stack(c), nil
}

func dirs(c *eval.BuiltinCall) (value.Value, error) { return stack(c), nil }
