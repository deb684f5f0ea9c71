package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrIsDir is returned by Copy when the source is a directory and recursive
// is not set.
var ErrIsDir = errors.New("is a directory (copy needs recursive)")

// ErrSameFile is returned by Copy when source and destination are the same
// file, or the destination lies inside the source tree.
var ErrSameFile = errors.New("source and destination overlap")

// Copy copies the file from to the path to, preserving permission bits
// (fs_read from, fs_write to). A directory needs recursive: the tree is
// recreated at to (merging into an existing directory), symlinks inside it
// are copied as symlinks, and a symlink given as from is followed. to is the
// final name; copying into a directory is the caller's job.
func (o *OS) Copy(ctx context.Context, from, to string, recursive bool) error {
	if err := o.authorize(ctx, Op{Effect: FSRead, Target: from}); err != nil {
		return err
	}
	if err := o.authorize(ctx, Op{Effect: FSWrite, Target: to}); err != nil {
		return err
	}
	fi, err := os.Stat(from)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return copyFile(from, to, fi.Mode().Perm())
	}
	if !recursive {
		return &fs.PathError{Op: "copy", Path: from, Err: ErrIsDir}
	}
	if within(from, to) {
		return &fs.PathError{Op: "copy", Path: to, Err: ErrSameFile}
	}
	return copyTree(ctx, from, to, fi.Mode().Perm())
}

// within reports whether to is from itself or lies beneath it.
func within(from, to string) bool {
	from, to = filepath.Clean(from), filepath.Clean(to)
	if from == to {
		return true
	}
	if !strings.HasSuffix(from, string(filepath.Separator)) {
		from += string(filepath.Separator)
	}
	return strings.HasPrefix(to, from)
}

func copyFile(from, to string, perm fs.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	if dfi, err := os.Stat(to); err == nil {
		if sfi, err := src.Stat(); err == nil && os.SameFile(sfi, dfi) {
			return &fs.PathError{Op: "copy", Path: to, Err: ErrSameFile}
		}
	}
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if err == nil {
		// An existing destination keeps its old mode and new files are
		// subject to umask: set the source's bits explicitly.
		err = dst.Chmod(perm)
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w", from, to, err)
	}
	return nil
}

func copyTree(ctx context.Context, from, to string, perm fs.FileMode) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Create writable first so entries can be added; restore bits after.
	if err := os.MkdirAll(to, perm|0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	for _, e := range entries {
		src, dst := filepath.Join(from, e.Name()), filepath.Join(to, e.Name())
		switch t := e.Type(); {
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				return err
			}
			if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			if err := os.Symlink(target, dst); err != nil {
				return err
			}
		case t.IsDir():
			fi, err := e.Info()
			if err != nil {
				return err
			}
			if err := copyTree(ctx, src, dst, fi.Mode().Perm()); err != nil {
				return err
			}
		case t.IsRegular():
			fi, err := e.Info()
			if err != nil {
				return err
			}
			if err := copyFile(src, dst, fi.Mode().Perm()); err != nil {
				return err
			}
		default:
			return &fs.PathError{Op: "copy", Path: src, Err: errors.New("not a regular file, directory or symlink")}
		}
	}
	return os.Chmod(to, perm)
}
