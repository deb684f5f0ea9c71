package fs

// Mutating filesystem builtins: mkdir, touch, cp, mv, ln and the command
// form of save.

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

func registerWrite(p *eval.Part) {
	p.Builtin(&eval.Builtin{Name: "mkdir", Help: eval.Help{Summary: "create directories (-p: with missing parents, an existing one is fine)", Usage: "mkdir PATH...", Example: "mkdir release\nmkdir -p build/cache/assets"}, Run: bfsMkdir, Effects: effMkdir,
		Flags: []leash.FlagSpec{{Long: "parents", Short: "p"}}})
	p.Builtin(&eval.Builtin{Name: "touch", Help: eval.Help{Summary: "create files or update their modification time", Usage: "touch PATH...", Example: "touch .ready\ntouch a.txt b.txt"}, Run: bfsTouch, Effects: effTouch})
	p.Builtin(&eval.Builtin{Name: "cp", Help: eval.Help{Summary: "copy files (-r: directories) to a file or into a directory", Usage: "cp SOURCE... DEST", Example: "cp config.toml config.bak\ncp -r assets public"}, Run: bfsCp, Flags: []leash.FlagSpec{flagRecursive()},
		Effects: func(d *leash.Deriver) { d.Transfer(host.FSRead, leash.Conditional, true) }})
	p.Builtin(&eval.Builtin{Name: "mv", Help: eval.Help{Summary: "move or rename paths", Usage: "mv SOURCE... DEST", Example: "mv old.txt new.txt\nmv a.txt b.txt archive"}, Run: bfsMv,
		Effects: func(d *leash.Deriver) { d.Transfer(host.FSDelete, leash.Conditional, true) }})
	p.Builtin(&eval.Builtin{Name: "ln", Help: eval.Help{Summary: "make a hard link, or a symbolic one with -s", Usage: "ln TARGET LINK", Example: "ln -s ../shared/config.toml shared.toml"}, Run: bfsLn, Flags: []leash.FlagSpec{{Long: "symbolic", Short: "s"}},
		Effects: func(d *leash.Deriver) {
			if d.Flag("symbolic") {
				d.Symlink(leash.Irreversible)
				return
			}
			d.Transfer(host.FSRead, leash.Irreversible, false)
		}})
	p.Builtin(&eval.Builtin{Name: "save", Help: eval.Help{Summary: "write a value to a file (text and bytes as is, others as JSON) and return it", Usage: "save PATH VALUE", Example: "save report.json {ok: true, count: 3}"}, Run: bfsSave, Bare: true, Quiet: true, Hidden: true,
		Effects: func(d *leash.Deriver) { d.PathArgs(host.FSWrite, leash.Conditional) }})
	p.Func(&eval.Func{Name: "save", Call: fnSave, Help: eval.Help{Summary: "write a value to a file and return it", Usage: "save(PATH, VALUE)", Example: "save(\"out.json\", {ok: true})"}, Effects: effSaveCall})
}

// effSaveCall: save(path, value) writes its first argument.
func effSaveCall(d *leash.Deriver) {
	if args := d.Args(); len(args) > 0 {
		d.ExprPath(args[0].Value, host.FSWrite, leash.Conditional)
	}
}

// fnSave is save(path, value), the call form of the save command: it
// writes value (text and bytes as they are, anything else as JSON) and
// returns it.
func fnSave(c *eval.FuncCall, a value.Args) (value.Value, error) {
	if len(a.Pos) != 2 {
		return nil, value.Errorf(bfsArgError, "save takes a path and a value: save(path, value)")
	}
	p, err := eval.PathText(a.Pos[0])
	if err != nil {
		return nil, err
	}
	return a.Pos[1], c.Save(a.Pos[1], p, false)
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

// bfsMkdir creates each directory. Without -p the parent must exist and
// the path must not; with -p missing ancestors are created and an
// existing directory is accepted.
func bfsMkdir(c *eval.BuiltinCall) (value.Value, error) {
	parents := c.Flag("parents")
	args, err := bfsPaths(c)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, c.Errorf(bfsArgError, "needs at least one path").WithHint("mkdir [-p] PATH...")
	}
	if parents {
		c.UndoLose("mkdir -p (whether each directory was new is not known)")
	}
	for _, p := range args {
		abs := c.Abs(p)
		if !parents {
			if _, err := c.Host().Lstat(c.Ctx(), abs); err == nil {
				return nil, c.Errorf(bfsCustom, "%s: already exists", p).
					WithHint("mkdir -p accepts an existing directory")
			} else if eval.PassThrough(err) {
				return nil, err
			}
			parent := filepath.Dir(abs)
			if ok, err := bfsIsDir(c, parent); err != nil {
				return nil, err
			} else if !ok {
				return nil, c.Errorf(bfsCustom, "%s: parent directory does not exist", p).
					WithHint("mkdir -p creates missing parents")
			}
		}
		if err := c.Host().MkdirAll(c.Ctx(), abs); err != nil {
			return nil, c.FileError(p, err)
		}
		if !parents {
			c.UndoRecord(eval.UndoStep{Op: eval.UndoRemove, Path: abs, Dir: true})
		}
	}
	return bfsPathList(args), nil
}

// bfsTouch creates each missing file and refreshes the access and
// modification times of existing ones to the host clock.
func bfsTouch(c *eval.BuiltinCall) (value.Value, error) {
	args, err := bfsPaths(c)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, c.Errorf(bfsArgError, "needs at least one path").WithHint("touch PATH...")
	}
	for _, p := range args {
		abs := c.Abs(p)
		_, err := c.Host().Stat(c.Ctx(), abs)
		switch {
		case err == nil:
			now := c.Host().Now()
			if err := c.Host().Chtimes(c.Ctx(), abs, now, now); err != nil {
				return nil, c.FileError(p, err)
			}
		case errors.Is(err, fs.ErrNotExist):
			if err := c.Host().WriteFile(c.Ctx(), abs, nil, true); err != nil {
				return nil, c.FileError(p, err)
			}
			// A new empty file; its mtime is the host's, not known here.
			c.UndoRecord(eval.UndoStep{Op: eval.UndoRemove, Path: abs})
		default:
			return nil, c.FileError(p, err)
		}
	}
	return bfsPathList(args), nil
}

// bfsSplitDest separates sources from the final destination argument and
// reports whether the destination is an existing directory. Several
// sources need a directory destination.
func bfsSplitDest(c *eval.BuiltinCall, usage string) (srcs []string, dest string, destDir, destExists bool, err error) {
	args, err := bfsPaths(c)
	if err != nil {
		return nil, "", false, false, err
	}
	if len(args) < 2 {
		return nil, "", false, false, c.Errorf(bfsArgError, "needs a source and a destination").WithHint(usage)
	}
	srcs, dest = args[:len(args)-1], args[len(args)-1]
	fi, serr := c.Host().Stat(c.Ctx(), c.Abs(dest))
	switch {
	case serr == nil:
		destDir, destExists = fi.IsDir(), true
	case eval.PassThrough(serr):
		return nil, "", false, false, serr
	case !errors.Is(serr, fs.ErrNotExist):
		destExists = true // unreadable: treat as present, so nothing claims it new
	}
	if len(srcs) > 1 && !destDir {
		return nil, "", false, false, c.Errorf(bfsArgError, "copying or moving several sources needs a directory destination, and %s is not one", dest).
			WithHint(usage)
	}
	return srcs, dest, destDir, destExists, nil
}

// bfsCp copies files, and directories with -r, returning the destination
// paths. All sources are checked before anything is copied.
func bfsCp(c *eval.BuiltinCall) (value.Value, error) {
	recursive := c.Flag("recursive")
	srcs, dest, destDir, destExists, err := bfsSplitDest(c, "cp [-r] SOURCE... DEST")
	if err != nil {
		return nil, err
	}
	infos := make([]fs.FileInfo, len(srcs))
	for i, s := range srcs {
		fi, err := c.Host().Stat(c.Ctx(), c.Abs(s))
		if err != nil {
			return nil, c.FileError(s, err)
		}
		if fi.IsDir() && !recursive {
			return nil, c.Errorf(bfsArgError, "%s is a directory", s).WithHint("copy directories with cp -r")
		}
		infos[i] = fi
	}
	switch {
	case destDir:
		c.UndoLose("cp into a directory (whether each destination was new is not known)")
	case destExists:
		c.UndoLose("cp over an existing path (its prior content is not kept)")
	case infos[0].IsDir():
		c.UndoLose("cp -r of a directory tree")
	}
	out := make([]string, 0, len(srcs))
	for _, s := range srcs {
		to := dest
		if destDir {
			to = bfsIntoDir(dest, s)
		}
		if err := c.Host().Copy(c.Ctx(), c.Abs(s), c.Abs(to), recursive); err != nil {
			return nil, c.FileError(s, err)
		}
		if !destDir && !destExists && !infos[0].IsDir() {
			// A new file with the source's size; its mtime is the copy's.
			c.UndoRecord(eval.UndoStep{Op: eval.UndoRemove, Path: c.Abs(to), Size: infos[0].Size()})
		}
		out = append(out, to)
	}
	return bfsPathList(out), nil
}

// bfsMv renames sources, into dest when it is a directory, returning the
// destination paths. Moving a path onto itself does nothing.
func bfsMv(c *eval.BuiltinCall) (value.Value, error) {
	srcs, dest, destDir, _, err := bfsSplitDest(c, "mv SOURCE... DEST")
	if err != nil {
		return nil, err
	}
	infos := make([]fs.FileInfo, len(srcs))
	for i, s := range srcs {
		fi, err := c.Host().Lstat(c.Ctx(), c.Abs(s))
		if err != nil {
			return nil, c.FileError(s, err)
		}
		infos[i] = fi
	}
	out := make([]string, 0, len(srcs))
	for i, s := range srcs {
		to := dest
		if destDir {
			to = bfsIntoDir(dest, s)
		}
		from, toAbs := c.Abs(s), c.Abs(to)
		if from != toAbs {
			if err := c.Host().Rename(c.Ctx(), from, toAbs); err != nil {
				return nil, c.FileError(s, err)
			}
			c.UndoRecord(eval.UndoStep{Op: eval.UndoMoveBack, Path: from, From: toAbs}.Fingerprint(infos[i]))
		}
		out = append(out, to)
	}
	return bfsPathList(out), nil
}

// bfsLn links LINK to TARGET: a hard link by default, a symbolic link with
// -s whose target is kept verbatim (relative to the link's directory).
func bfsLn(c *eval.BuiltinCall) (value.Value, error) {
	symbolic := c.Flag("symbolic")
	if len(c.Args) != 2 {
		return nil, c.Errorf(bfsArgError, "needs exactly a target and a link name").
			WithHint("ln [-s] TARGET LINK")
	}
	target, err := c.PathText(c.Args[0])
	if err != nil {
		return nil, err
	}
	link, err := c.PathText(c.Args[1])
	if err != nil {
		return nil, err
	}
	linkAbs := c.Abs(link)
	c.UndoLose("ln")
	if symbolic {
		if err := c.Host().Symlink(c.Ctx(), target, linkAbs); err != nil {
			return nil, c.FileError(link, err)
		}
	} else {
		if err := c.Host().Link(c.Ctx(), c.Abs(target), linkAbs); err != nil {
			return nil, c.FileError(link, err)
		}
	}
	return value.NewRecord(
		[]string{"target", "link", "symbolic"},
		[]value.Value{value.Path(target), value.Path(link), value.Bool(symbolic)},
	), nil
}

// bfsSave is `save PATH VALUE`: it delegates to VALUE.save(PATH) and
// returns the value.
func bfsSave(c *eval.BuiltinCall) (value.Value, error) {
	if len(c.Args) != 2 {
		return nil, c.Errorf(bfsArgError, "needs a path and a value").WithHint("save PATH VALUE, or save(path, value)")
	}
	p, v := c.Args[0], c.Args[1]
	if _, err := c.PathText(p); err != nil {
		return nil, err
	}
	c.UndoLose("save")
	_, ok, err := c.CallHostMethod(v, "save", value.Args{Pos: []value.Value{p}})
	if !ok {
		return nil, c.Errorf(bfsTypeError, "%s cannot be saved", value.TypeName(v))
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}
