package eval

// rm: by default a move into a session-temporary trash directory, with
// --permanent a real deletion.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

func registerBuiltinFsRm(p *Part) {
	p.Builtin(&Builtin{Name: "rm", Help: Help{Summary: "remove paths: moved to a session trash unless --permanent", Usage: "rm PATH...", Example: "rm scratch.txt\nrm -r build\nrm --permanent -r dist"}, Run: bfsRm, Effects: effRm,
		Flags: []leash.FlagSpec{{Long: "permanent"}, flagRecursive}})
}

var (
	bfsTrashOnce  sync.Once
	bfsTrashToken string       // names this process's trash directory
	bfsTrashSeq   atomic.Int64 // orders entries within it
)

// bfsTrashDir is <TrashRoot>/<token>: one directory per process.
func bfsTrashDir(c *BuiltinCall) string {
	bfsTrashOnce.Do(func() {
		var b [8]byte
		_, _ = rand.Read(b[:])
		bfsTrashToken = hex.EncodeToString(b[:])
	})
	if root := c.t.in.opts.Trash; root != "" {
		return filepath.Join(root, bfsTrashToken)
	}
	tmp, ok := c.Getenv("TMPDIR")
	return filepath.Join(trashRoot(tmp, ok), bfsTrashToken)
}

// TrashRoot is the directory rm's trash lies under in this session, with
// environment env: Options.Trash, else TrashRoot(env).
func (in *Interp) TrashRoot(env []string) string {
	if in.opts.Trash != "" {
		return in.opts.Trash
	}
	return TrashRoot(env)
}

// TrashRoot is the directory under which rm (without --permanent) makes
// this process's trash, for a session with environment env (KEY=VALUE):
// <TMPDIR>/shoal-trash, with /tmp when TMPDIR is unset or relative. Plans
// name it as what rm writes.
func TrashRoot(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "TMPDIR="); ok {
			return trashRoot(v, true)
		}
	}
	return trashRoot("", false)
}

func trashRoot(tmp string, ok bool) string {
	if !ok || !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, "shoal-trash")
}

// bfsRm removes paths. No paths at all (an empty glob included) is
// no_matches, so a glob that matched nothing never widens into something
// else. Every target is checked before anything is removed.
//
// Default: each target is renamed into the trash and the result lists
// {path, trash} records. --permanent deletes (directories need -r) and the
// result lists the removed paths.
func bfsRm(c *BuiltinCall) (value.Value, error) {
	permanent := c.Flag("permanent")
	recursive := c.Flag("recursive")
	args, err := bfsPaths(c)
	if err != nil {
		return nil, err
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
			return nil, bfsFail(c, p, err)
		}
		dirs[i], infos[i] = fi.IsDir(), fi
		if permanent && dirs[i] && !recursive {
			return nil, c.Errorf(bfsArgError, "%s is a directory", p).
				WithHint("remove directories permanently with rm --permanent -r")
		}
	}
	if permanent {
		undoLose(c.Ctx(), "rm --permanent")
		for i, p := range args {
			if err := c.Host().Remove(c.Ctx(), c.Abs(p), dirs[i]); err != nil {
				return nil, bfsFail(c, p, err)
			}
		}
		return bfsPathList(args), nil
	}
	trash := bfsTrashDir(c)
	if err := c.Host().MkdirAll(c.Ctx(), trash); err != nil {
		return nil, bfsFail(c, trash, err)
	}
	if f := c.t.in.opts.Trashed; f != nil {
		defer f() // also after a failure part way: what moved is there
	}
	keys := []string{"path", "trash"}
	out := make([]value.Value, 0, len(args))
	for i, p := range args {
		abs := c.Abs(p)
		name := strconv.FormatInt(bfsTrashSeq.Add(1), 10) + "-" + filepath.Base(abs)
		to := filepath.Join(trash, name)
		renamed, err := bfsMoveToTrash(c, abs, to)
		if err != nil {
			return nil, bfsFail(c, p, err)
		}
		step := undoFingerprint(UndoStep{Op: UndoRestore, Path: abs, From: to}, infos[i])
		if !renamed {
			step.ModNS = 0 // copied across filesystems: the copy's mtime is new
		}
		undoRecord(c.Ctx(), step)
		out = append(out, value.NewRecord(keys, []value.Value{value.Path(p), value.Path(to)}))
	}
	return value.NewList(out), nil
}

// bfsMoveToTrash renames from to to, falling back to copy-then-delete when
// the trash is on another filesystem; renamed reports which it did. A copy
// is bounded (MaxTrashCopyBytes, MaxTrashCopyEntries) and measured before
// it starts.
func bfsMoveToTrash(c *BuiltinCall, from, to string) (renamed bool, err error) {
	err = c.Host().Rename(c.Ctx(), from, to)
	if err == nil || !errors.Is(err, syscall.EXDEV) {
		return err == nil, err
	}
	if err := bfsTrashCopyFits(c, from); err != nil {
		return false, err
	}
	if err := c.Host().Copy(c.Ctx(), from, to, true); err != nil {
		return false, err
	}
	return false, c.Host().Remove(c.Ctx(), from, true)
}

// bfsTrashCopyFits measures the tree at root (regular files' sizes, every
// entry counted, symlinks not followed) without recursion, stopping as
// soon as it passes MaxTrashCopyBytes or MaxTrashCopyEntries, and refuses
// it with too_large when it does.
func bfsTrashCopyFits(c *BuiltinCall, root string) error {
	var bytes, entries int64
	over := func() error {
		return c.Errorf(codeTooLarge, "%s is on another file system than the trash, and holds more than rm copies there (%d MiB or %d entries)",
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
