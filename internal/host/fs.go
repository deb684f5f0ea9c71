package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"
)

// ErrTooLarge is returned (wrapped in an *fs.PathError) by ReadFile for a
// file longer than the host's read bound.
var ErrTooLarge = errors.New("file is larger than the read limit")

// Stat returns file information, following symlinks (fs_read path).
func (o *OS) Stat(ctx context.Context, path string) (fs.FileInfo, error) {
	if o.held() {
		return o.heldStat(ctx, path, true)
	}
	if err := o.authorize(ctx, Op{Effect: FSRead, Target: path}); err != nil {
		return nil, err
	}
	return os.Stat(path)
}

// Lstat returns file information without following a final symlink
// (fs_read path).
func (o *OS) Lstat(ctx context.Context, path string) (fs.FileInfo, error) {
	if o.held() {
		return o.heldStat(ctx, path, false)
	}
	if err := o.authorizeNoFollow(ctx, Op{Effect: FSRead, Target: path}); err != nil {
		return nil, err
	}
	return os.Lstat(path)
}

// ReadFile returns the whole content of path (fs_read path). It reads at
// most the host's read bound (DefaultMaxRead unless WithMaxRead): a longer
// file, or one that never ends like /dev/zero, fails with ErrTooLarge
// rather than exhausting memory. A cancelled ctx stops the read between
// chunks.
func (o *OS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	f, err := o.openRead(ctx, path)
	if err != nil {
		return nil, err
	}
	data, more, err := readBounded(ctx, f, o.maxRead)
	if err != nil {
		return nil, err
	}
	if more {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w of %d bytes", ErrTooLarge, o.maxRead)}
	}
	return data, nil
}

// ReadEach reads path (fs_read path) in chunks of at most 64 KiB, calling
// fn with each; memory stays one chunk whatever the file's size.
func (o *OS) ReadEach(ctx context.Context, path string, fn func([]byte) error) error {
	f, err := o.openRead(ctx, path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := f.Read(buf)
		if n > 0 {
			if ferr := fn(buf[:n]); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// ReadPrefix returns at most n bytes from the start of path (fs_read
// path), and whether the file goes on beyond them. n is capped at the
// host's read bound.
func (o *OS) ReadPrefix(ctx context.Context, path string, n int64) ([]byte, bool, error) {
	f, err := o.openRead(ctx, path)
	if err != nil {
		return nil, false, err
	}
	return readBounded(ctx, f, min(max(n, 0), o.maxRead))
}

// openRead asks fs_read of path and opens it for reading: by name on an
// ungated host, through a held descriptor on a gated one (held.go).
func (o *OS) openRead(ctx context.Context, path string) (*os.File, error) {
	if o.held() {
		return o.heldFile(ctx, Op{Effect: FSRead, Target: path}, true, os.O_RDONLY, 0)
	}
	if err := o.authorize(ctx, Op{Effect: FSRead, Target: path}); err != nil {
		return nil, err
	}
	return os.Open(path)
}

// readChunk is how much readBounded reads between looks at ctx.
const readChunk = 1 << 20

// readBounded reads up to limit bytes of f, which it closes, and reports
// whether there was more.
func readBounded(ctx context.Context, f *os.File, limit int64) ([]byte, bool, error) {
	defer f.Close()
	size := int64(readChunk)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		size = fi.Size() + 1 // room to see the end without growing
	}
	buf := make([]byte, 0, min(size, limit+1))
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, readChunk)
		}
		want := min(cap(buf)-len(buf), readChunk, int(limit+1)-len(buf))
		n, err := f.Read(buf[len(buf) : len(buf)+want])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf[:limit], true, nil
		}
		if err == io.EOF {
			return buf, false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// WriteFile creates or truncates path with data, or appends to it when
// appendTo is set (fs_write path). New files get mode 0666 before umask.
func (o *OS) WriteFile(ctx context.Context, path string, data []byte, appendTo bool) error {
	if o.held() {
		return o.heldWrite(ctx, path, data, appendTo)
	}
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
	if o.held() {
		return o.heldReadDir(ctx, path)
	}
	if err := o.authorize(ctx, Op{Effect: FSRead, Target: path}); err != nil {
		return nil, err
	}
	return os.ReadDir(path)
}

// MkdirAll creates path and any missing parents with mode 0777 before
// umask (fs_write path). An existing directory is not an error.
func (o *OS) MkdirAll(ctx context.Context, path string) error {
	if o.held() {
		return o.heldMkdirAll(ctx, path)
	}
	if err := o.authorize(ctx, Op{Effect: FSWrite, Target: path}); err != nil {
		return err
	}
	return os.MkdirAll(path, 0o777)
}

// Remove deletes path (fs_delete path); with recursive it deletes a whole
// tree. A missing path is an fs.ErrNotExist error in both modes.
func (o *OS) Remove(ctx context.Context, path string, recursive bool) error {
	if o.held() {
		return o.heldRemove(ctx, path, recursive)
	}
	op := Op{Effect: FSDelete, Target: path}
	if recursive {
		if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
			op.Tree = true
		}
	}
	if err := o.authorizeNoFollow(ctx, op); err != nil {
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
	if o.held() {
		return o.heldRename(ctx, from, to)
	}
	if err := o.authorizeNoFollow(ctx, Op{Effect: FSDelete, Target: from}); err != nil {
		return err
	}
	if err := o.authorizeNoFollow(ctx, Op{Effect: FSWrite, Target: to}); err != nil {
		return err
	}
	return os.Rename(from, to)
}

// Symlink creates link pointing at target (fs_write link).
func (o *OS) Symlink(ctx context.Context, target, link string) error {
	if o.held() {
		return o.heldSymlink(ctx, target, link)
	}
	if err := o.authorizeNoFollow(ctx, Op{Effect: FSWrite, Target: link}); err != nil {
		return err
	}
	return os.Symlink(target, link)
}

// Link creates link as a hard link to target (fs_read target, then
// fs_write link): the link exposes target's content under a new name.
func (o *OS) Link(ctx context.Context, target, link string) error {
	if o.held() {
		return o.heldLink(ctx, target, link)
	}
	if err := o.authorizeNoFollow(ctx, Op{Effect: FSRead, Target: target}); err != nil {
		return err
	}
	if err := o.authorizeNoFollow(ctx, Op{Effect: FSWrite, Target: link}); err != nil {
		return err
	}
	return os.Link(target, link)
}

// Chtimes sets the access and modification times of path (fs_write path).
func (o *OS) Chtimes(ctx context.Context, path string, atime, mtime time.Time) error {
	if o.held() {
		return o.heldChtimes(ctx, path, atime, mtime)
	}
	if err := o.authorize(ctx, Op{Effect: FSWrite, Target: path}); err != nil {
		return err
	}
	return os.Chtimes(path, atime, mtime)
}
