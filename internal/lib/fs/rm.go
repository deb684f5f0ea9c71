package fs

// rm: by default a move into a session-temporary trash directory, with
// --permanent a real deletion.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

func registerRm(p *eval.Part, tr *trash) {
	p.Builtin(&eval.Builtin{Name: "rm", Help: eval.Help{Summary: "remove paths: moved to a session trash unless --permanent", Usage: "rm [-r] [-f] [--permanent] PATH...", Example: "rm scratch.txt\nrm -rf build\nrm --permanent -r dist"}, Run: tr.rm, Effects: effRm,
		Flags: []leash.FlagSpec{{Long: "permanent"}, flagRecursive(), {Long: "force", Short: "f"}}})
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

// trash is where one registry part's rm moves what it removes: a
// directory named by a random token under each session's trash root
// (eval's Context.TrashRoot), so a process whose sessions share the
// standard registry has one directory per root. Entries are numbered in
// the order they arrive.
type trash struct {
	token func() string // names the directory, drawn on the first rm
	seq   atomic.Int64  // orders entries within it
}

// newTrash is a trash whose random token is drawn when an rm first needs
// it: the first read of crypto/rand sets up the vDSO's random state, which
// a process that never removes anything (shoal -c) need not pay for.
func newTrash() *trash {
	return &trash{token: sync.OnceValue(func() string {
		var b [8]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:])
	})}
}

// dir is <TrashRoot>/<token>.
func (tr *trash) dir(c *eval.BuiltinCall) string {
	return filepath.Join(c.TrashRoot(), tr.token())
}

// rm removes paths. No paths at all (an empty glob included) is
// no_matches, so a glob that matched nothing never widens into something
// else. Every target is checked before anything is removed.
//
// Default: each target is renamed into the trash and the result lists
// {path, trash} records. --permanent deletes (directories need -r) and the
// result lists the removed paths. -f (--force) skips a target that does
// not exist instead of failing, and an empty argument list is then no
// error: the shell idiom `rm -rf build` for "make sure it is gone". Any
// other failure (a refusal, a permission) still fails.
func (tr *trash) rm(c *eval.BuiltinCall) (value.Value, error) {
	permanent := c.Flag("permanent")
	recursive := c.Flag("recursive")
	force := c.Flag("force")
	args, err := bfsPaths(c)
	if err != nil {
		return nil, err
	}
	if force {
		kept := args[:0]
		for _, p := range args {
			if _, err := c.Host().Lstat(c.Ctx(), c.Abs(p)); errors.Is(err, fs.ErrNotExist) {
				continue
			}
			kept = append(kept, p)
		}
		if args = kept; len(args) == 0 {
			return value.NewList(nil), nil
		}
	}
	if len(args) == 0 {
		return nil, c.Errorf(bfsNoMatches, "no paths to remove").
			WithHint("the arguments (or a glob) matched nothing, so nothing was removed")
	}
	dirs := make([]bool, len(args))
	infos := make([]fs.FileInfo, len(args))
	for i, p := range args {
		fi, err := c.Host().Lstat(c.Ctx(), c.Abs(p))
		if err != nil {
			return nil, c.FileError(p, err)
		}
		dirs[i], infos[i] = fi.IsDir(), fi
		if permanent && dirs[i] && !recursive {
			return nil, c.Errorf(bfsArgError, "%s is a directory", p).
				WithHint("remove directories permanently with rm --permanent -r")
		}
	}
	if permanent {
		c.UndoLose("rm --permanent")
		for i, p := range args {
			if err := c.Host().Remove(c.Ctx(), c.Abs(p), dirs[i]); err != nil {
				return nil, c.FileError(p, err)
			}
		}
		return bfsPathList(args), nil
	}
	trash := tr.dir(c)
	// Only these calls may reach the trash: the gate refuses any other op
	// there (policy.Grants.WithTrash).
	tctx := host.WithTrashMove(c.Ctx())
	if err := c.Host().MkdirAll(tctx, trash); err != nil {
		return nil, c.FileError(trash, err)
	}
	defer c.Trashed() // also after a failure part way: what moved is there
	keys := []string{"path", "trash"}
	out := make([]value.Value, 0, len(args))
	for i, p := range args {
		abs := c.Abs(p)
		name := strconv.FormatInt(tr.seq.Add(1), 10) + "-" + filepath.Base(abs)
		to := filepath.Join(trash, name)
		renamed, err := bfsMoveToTrash(c, tctx, abs, to)
		if err != nil {
			return nil, c.FileError(p, err)
		}
		step := eval.UndoStep{Op: eval.UndoRestore, Path: abs, From: to}.Fingerprint(infos[i])
		if !renamed {
			step.ModNS = 0 // copied across filesystems: the copy's mtime is new
		}
		c.UndoRecord(step)
		out = append(out, value.NewRecord(keys, []value.Value{value.Path(p), value.Path(to)}))
	}
	return value.NewList(out), nil
}

// bfsMoveToTrash renames from to to, falling back to copy-then-delete when
// the trash is on another filesystem; renamed reports which it did. A copy
// is bounded (MaxTrashCopyBytes, MaxTrashCopyEntries) and measured before
// it starts. tctx is the call's context marked as a trash move.
func bfsMoveToTrash(c *eval.BuiltinCall, tctx context.Context, from, to string) (renamed bool, err error) {
	err = c.Host().Rename(tctx, from, to)
	if err == nil || !errors.Is(err, syscall.EXDEV) {
		return err == nil, err
	}
	if err := bfsTrashCopyFits(c, from); err != nil {
		return false, err
	}
	if err := c.Host().Copy(tctx, from, to, true); err != nil {
		return false, err
	}
	return false, c.Host().Remove(c.Ctx(), from, true)
}

// bfsTrashCopyFits measures the tree at root (regular files' sizes, every
// entry counted, symlinks not followed) without recursion, stopping as
// soon as it passes MaxTrashCopyBytes or MaxTrashCopyEntries, and refuses
// it with too_large when it does.
func bfsTrashCopyFits(c *eval.BuiltinCall, root string) error {
	var bytes, entries int64
	over := func() error {
		return c.Errorf(bfsTooLarge, "%s is on another file system than the trash, and holds more than rm copies there (%d MiB or %d entries)",
			root, MaxTrashCopyBytes>>20, MaxTrashCopyEntries).
			WithHint("delete it with rm --permanent (no undo), or move it yourself")
	}
	stack := []string{root}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fi, err := c.Host().Lstat(c.Ctx(), p)
		if err != nil {
			return err
		}
		entries++
		if fi.Mode().IsRegular() {
			bytes += fi.Size()
		}
		if bytes > MaxTrashCopyBytes || entries > MaxTrashCopyEntries {
			return over()
		}
		if !fi.IsDir() {
			continue
		}
		des, err := c.Host().ReadDir(c.Ctx(), p)
		if err != nil {
			return err
		}
		if entries+int64(len(stack))+int64(len(des)) > MaxTrashCopyEntries {
			return over()
		}
		for _, de := range des {
			stack = append(stack, filepath.Join(p, de.Name()))
		}
	}
	return nil
}
