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
// final name; copying into a directory is the caller's job. A source that
// is not a regular file (a device, a pipe) is copied up to the host's read
// bound: past it the copy is removed and Copy fails with ErrTooLarge, so
// `cp /dev/zero f` cannot fill the disk. Cancelling ctx stops a copy
// between reads.
func (o *OS) Copy(ctx context.Context, from, to string, recursive bool) error {
	if o.held() {
		return o.heldCopy(ctx, from, to, recursive)
	}
	tree := false
	if recursive {
		if fi, err := os.Stat(from); err == nil && fi.IsDir() {
			tree = true
		}
	}
	if err := o.authorize(ctx, Op{Effect: FSRead, Target: from, Tree: tree}); err != nil {
		return err
	}
	if err := o.authorize(ctx, Op{Effect: FSWrite, Target: to, Tree: tree}); err != nil {
		return err
	}
	fi, err := os.Stat(from)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		limit := int64(-1)
		if !fi.Mode().IsRegular() {
			limit = o.maxRead
		}
		return copyFile(ctx, from, to, fi.Mode().Perm(), limit)
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

// ctxReader fails reads once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// copyFile copies one file; limit >= 0 bounds the bytes copied (past it the
// destination is removed and the error is ErrTooLarge).
func copyFile(ctx context.Context, from, to string, perm fs.FileMode, limit int64) error {
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
	var r io.Reader = ctxReader{ctx, src}
	if limit >= 0 {
		r = io.LimitReader(r, limit+1)
	}
	n, err := io.Copy(dst, r)
	if err == nil && limit >= 0 && n > limit {
		dst.Close()
		_ = os.Remove(to)
		return &fs.PathError{Op: "copy", Path: from, Err: fmt.Errorf("%w of %d bytes", ErrTooLarge, limit)}
	}
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
			if err := copyFile(ctx, src, dst, fi.Mode().Perm(), -1); err != nil {
				return err
			}
		default:
			return &fs.PathError{Op: "copy", Path: src, Err: errors.New("not a regular file, directory or symlink")}
		}
	}
	return os.Chmod(to, perm)
}
