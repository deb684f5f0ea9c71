package host

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Stat returns file information, following symlinks (fs_read path).
func (o *OS) Stat(ctx context.Context, path string) (fs.FileInfo, error) {
	if err := o.authorize(ctx, Op{Effect: FSRead, Target: path}); err != nil {
		return nil, err
	}
	return os.Stat(path)
}

// Lstat returns file information without following a final symlink
// (fs_read path).
func (o *OS) Lstat(ctx context.Context, path string) (fs.FileInfo, error) {
	if err := o.authorize(ctx, Op{Effect: FSRead, Target: path}); err != nil {
		return nil, err
	}
	return os.Lstat(path)
}

// ReadFile returns the whole content of path (fs_read path).
func (o *OS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if err := o.authorize(ctx, Op{Effect: FSRead, Target: path}); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// WriteFile creates or truncates path with data, or appends to it when
// appendTo is set (fs_write path). New files get mode 0666 before umask.
func (o *OS) WriteFile(ctx context.Context, path string, data []byte, appendTo bool) error {
	if err := o.authorize(ctx, Op{Effect: FSWrite, Target: path}); err != nil {
		return err
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, flag, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadDir lists a directory sorted by name (fs_read path).
func (o *OS) ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	if err := o.authorize(ctx, Op{Effect: FSRead, Target: path}); err != nil {
		return nil, err
	}
	return os.ReadDir(path)
}

// MkdirAll creates path and any missing parents with mode 0777 before
// umask (fs_write path). An existing directory is not an error.
func (o *OS) MkdirAll(ctx context.Context, path string) error {
	if err := o.authorize(ctx, Op{Effect: FSWrite, Target: path}); err != nil {
		return err
	}
	return os.MkdirAll(path, 0o777)
}

// Remove deletes path (fs_delete path); with recursive it deletes a whole
// tree. A missing path is an fs.ErrNotExist error in both modes.
func (o *OS) Remove(ctx context.Context, path string, recursive bool) error {
	if err := o.authorize(ctx, Op{Effect: FSDelete, Target: path}); err != nil {
		return err
	}
	if !recursive {
		return os.Remove(path)
	}
	if _, err := os.Lstat(path); err != nil {
		return err
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}

// Rename moves from to to, replacing a file at to (fs_delete from, fs_write
// to). Moving into a directory is the caller's job: to is the final name.
func (o *OS) Rename(ctx context.Context, from, to string) error {
	if err := o.authorize(ctx, Op{Effect: FSDelete, Target: from}); err != nil {
		return err
	}
	if err := o.authorize(ctx, Op{Effect: FSWrite, Target: to}); err != nil {
		return err
	}
	return os.Rename(from, to)
}

// Symlink creates link pointing at target (fs_write link).
func (o *OS) Symlink(ctx context.Context, target, link string) error {
	if err := o.authorize(ctx, Op{Effect: FSWrite, Target: link}); err != nil {
		return err
	}
	return os.Symlink(target, link)
}

// Link creates link as a hard link to target (fs_read target, then
// fs_write link): the link exposes target's content under a new name.
func (o *OS) Link(ctx context.Context, target, link string) error {
	if err := o.authorize(ctx, Op{Effect: FSRead, Target: target}); err != nil {
		return err
	}
	if err := o.authorize(ctx, Op{Effect: FSWrite, Target: link}); err != nil {
		return err
	}
	return os.Link(target, link)
}

// Chtimes sets the access and modification times of path (fs_write path).
func (o *OS) Chtimes(ctx context.Context, path string, atime, mtime time.Time) error {
	if err := o.authorize(ctx, Op{Effect: FSWrite, Target: path}); err != nil {
		return err
	}
	return os.Chtimes(path, atime, mtime)
}
