package eval

// Navigation builtins: pwd, cd and the session directory stack (pushd,
// popd, dirs). They return their value directly rather than an outcome;
// the ones that move are session-level and refused inside functions.

import (
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

const (
	bfsCdHint    = "use `with cwd: dir { ... }` for a scoped change, or call it at the top level"
	bfsStackHint = "the directory stack is session state; call it at the top level"
)

func registerBuiltinFsNav(p *Part) {
	p.Builtin(&Builtin{Name: "pwd", Help: Help{Summary: "the working directory, as a path", Usage: "pwd", Example: "pwd\npwd.name"}, Run: bfsPwd, Bare: true, Effects: effNone})
	p.Builtin(&Builtin{Name: "cd", Help: Help{Summary: "change the working directory (- for the previous one)", Usage: "cd [PATH | -]", Example: "cd src\ncd -\ncd ~"}, Run: bfsCd, Bare: true, Session: true, SessionHint: bfsCdHint, Quiet: true, Hidden: true,
		Effects: func(d *leash.Deriver) { d.Cd() }})
	p.Builtin(&Builtin{Name: "pushd", Help: Help{Summary: "change directory and push the old one on the directory stack", Usage: "pushd [PATH]", Example: "pushd /tmp\npopd"}, Run: bfsPushd, Bare: true, Session: true, SessionHint: bfsStackHint,
		Effects: func(d *leash.Deriver) { d.Pushd() }})
	p.Builtin(&Builtin{Name: "popd", Help: Help{Summary: "go back to the directory on top of the stack", Usage: "popd", Example: "pushd /tmp\npopd"}, Run: bfsPopd, Bare: true, Session: true, SessionHint: bfsStackHint,
		Effects: func(d *leash.Deriver) { d.Popd() }})
	p.Builtin(&Builtin{Name: "dirs", Help: Help{Summary: "the directory stack, most recent first", Usage: "dirs", Example: "dirs"}, Run: bfsDirs, Bare: true, Effects: effNone})
}

func bfsPwd(c *BuiltinCall) (value.Value, error) { return value.Path(c.Dir()), nil }

// bfsCd changes directory: to PATH, to the previous directory with `-`,
// or home (falling back to /) with no argument.
func bfsCd(c *BuiltinCall) (value.Value, error) {
	var dir string
	switch {
	case len(c.Args) == 0:
		home, ok := c.Getenv("HOME")
		if !ok || home == "" {
			home = "/"
		}
		dir = c.Abs(home)
	case bfsIsDash(c.Args[0]):
		dir = c.OldDir()
		if dir == "" {
			return nil, c.Errorf(bfsCustom, "no previous directory: OLDPWD is not set")
		}
	default:
		var err error
		if dir, err = bfsTargetDir(c, c.Args[0]); err != nil {
			return nil, err
		}
	}
	if err := bfsCheckDir(c, dir, dir); err != nil {
		return nil, err
	}
	c.Chdir(dir)
	return value.Path(dir), nil
}

// bfsIsDash reports whether v is the `-` argument of `cd -`.
func bfsIsDash(v value.Value) bool {
	s, ok := v.(value.Str)
	return ok && s == "-"
}

// bfsTargetDir resolves a navigation argument to an absolute path.
func bfsTargetDir(c *BuiltinCall, v value.Value) (string, error) {
	p, err := bfsText(c, v)
	if err != nil {
		return "", c.Errorf(bfsArgError, "needs a directory path, got %s", value.TypeName(v))
	}
	return c.Abs(p), nil
}

// bfsCheckDir requires abs to be an existing directory; shown names it in
// messages.
func bfsCheckDir(c *BuiltinCall, abs, shown string) error {
	fi, err := c.Host().Stat(c.Ctx(), abs)
	if err != nil {
		if bfsPassThrough(err) {
			return err
		}
		return c.Errorf(bfsArgError, "%s: %s", shown, bfsReason(err))
	}
	if !fi.IsDir() {
		return c.Errorf(bfsArgError, "%s is not a directory", shown)
	}
	return nil
}

// bfsStack is the current directory followed by the saved stack.
func bfsStack(c *BuiltinCall) *value.List {
	st := c.DirStack()
	items := make([]value.Value, 0, len(st)+1)
	items = append(items, value.Path(c.Dir()))
	for _, d := range st {
		items = append(items, value.Path(d))
	}
	return value.NewList(items)
}

// bfsPushd enters PATH, saving the current directory on the stack; with
// no argument it swaps the current directory with the top of the stack.
func bfsPushd(c *BuiltinCall) (value.Value, error) {
	st := c.DirStack()
	if len(c.Args) == 0 {
		if len(st) == 0 {
			return nil, c.Errorf(bfsCustom, "the directory stack is empty: nothing to swap with").
				WithHint("pushd DIR saves the current directory and enters DIR")
		}
		top := st[0]
		if err := bfsCheckDir(c, top, top); err != nil {
			return nil, err
		}
		next := append([]string{c.Dir()}, st[1:]...)
		c.Chdir(top)
		c.SetDirStack(next)
		return bfsStack(c), nil
	}
	dir, err := bfsTargetDir(c, c.Args[0])
	if err != nil {
		return nil, err
	}
	if err := bfsCheckDir(c, dir, dir); err != nil {
		return nil, err
	}
	next := append([]string{c.Dir()}, st...)
	c.Chdir(dir)
	c.SetDirStack(next)
	return bfsStack(c), nil
}

// bfsPopd leaves for the directory on top of the stack and drops it.
func bfsPopd(c *BuiltinCall) (value.Value, error) {
	st := c.DirStack()
	if len(st) == 0 {
		return nil, c.Errorf(bfsCustom, "the directory stack is empty").
			WithHint("pushd DIR saves the current directory first")
	}
	top := st[0]
	if err := bfsCheckDir(c, top, top); err != nil {
		return nil, err
	}
	c.Chdir(top)
	c.SetDirStack(append([]string(nil), st[1:]...))
	return bfsStack(c), nil
}

func bfsDirs(c *BuiltinCall) (value.Value, error) { return bfsStack(c), nil }
