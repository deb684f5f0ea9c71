package host

// The filesystem operations of a gated OS host on Linux (see held.go):
// each judges the real path and then acts on a descriptor opened on that
// path without following any symlink.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// heldFile judges op and opens its real path with flags; the file is
// named by op.Target.
func (o *OS) heldFile(ctx context.Context, op Op, follow bool, flags int, mode uint32) (*os.File, error) {
	fd, err := o.heldOpen(ctx, op, follow, flags, mode)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), op.Target), nil
}

// heldOpen judges op and opens its real path with flags.
func (o *OS) heldOpen(ctx context.Context, op Op, follow bool, flags int, mode uint32) (int, error) {
	fd := -1
	err := retryHeld("open", op.Target, func() error {
		real, err := o.judge(ctx, op, follow)
		if err != nil {
			return err
		}
		if !follow {
			flags |= unix.O_NOFOLLOW
		}
		fd, err = openHeld(unix.AT_FDCWD, real, flags, mode)
		if err != nil {
			return renamePath(err, op.Target)
		}
		return nil
	})
	return fd, err
}

func (o *OS) heldStat(ctx context.Context, path string, follow bool) (fs.FileInfo, error) {
	name := "stat"
	if !follow {
		name = "lstat"
	}
	fd, err := o.heldOpen(ctx, Op{Effect: FSRead, Target: path}, follow, unix.O_PATH, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Op == "open" {
			pe.Op = name
		}
		return nil, err
	}
	st, err := statAt(fd, "")
	unix.Close(fd)
	if err != nil {
		return nil, &fs.PathError{Op: name, Path: path, Err: err}
	}
	return &heldInfo{name: filepath.Base(path), st: st}, nil
}

func (o *OS) heldReadDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	f, err := o.heldFile(ctx, Op{Effect: FSRead, Target: path}, true, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readDirHeld(f)
}

// readDirHeld lists the open directory f sorted by name, each entry's
// information taken from the held descriptor (fstatat), never by path.
func readDirHeld(f *os.File) ([]fs.DirEntry, error) {
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	fd := int(f.Fd())
	out := make([]fs.DirEntry, 0, len(names))
	for _, n := range names {
		st, err := statAt(fd, n)
		if err != nil {
			continue // gone since it was listed
		}
		out = append(out, fs.FileInfoToDirEntry(&heldInfo{name: n, st: st}))
	}
	return out, nil
}

func (o *OS) heldWrite(ctx context.Context, path string, data []byte, appendTo bool) error {
	flag := unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC
	if appendTo {
		flag = unix.O_WRONLY | unix.O_CREAT | unix.O_APPEND
	}
	f, err := o.heldFile(ctx, Op{Effect: FSWrite, Target: path}, true, flag, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (o *OS) heldMkdirAll(ctx context.Context, path string) error {
	return retryHeld("mkdir", path, func() error {
		real, err := o.judge(ctx, Op{Effect: FSWrite, Target: path}, true)
		if err != nil {
			return err
		}
		fd, err := mkdirAllHeld(real)
		if err != nil {
			return renamePath(err, path)
		}
		unix.Close(fd)
		return nil
	})
}

// mkdirAllHeld creates the directories of real from the root down, each
// looked up in its held parent without following symlinks, and returns
// the last one open (O_PATH).
func mkdirAllHeld(real string) (int, error) {
	fd, err := openHeld(unix.AT_FDCWD, "/", unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return -1, err
	}
	for _, c := range splitPath(real) {
		next, err := openHeld(fd, c, unix.O_PATH|unix.O_DIRECTORY, 0)
		if errors.Is(err, unix.ENOENT) {
			if merr := unix.Mkdirat(fd, c, 0o777); merr != nil && merr != unix.EEXIST {
				unix.Close(fd)
				return -1, &fs.PathError{Op: "mkdir", Path: real, Err: merr}
			}
			next, err = openHeld(fd, c, unix.O_PATH|unix.O_DIRECTORY, 0)
		}
		unix.Close(fd)
		if err != nil {
			return -1, renamePath(err, real)
		}
		fd = next
	}
	return fd, nil
}

func (o *OS) heldRemove(ctx context.Context, path string, recursive bool) error {
	return retryHeld("remove", path, func() error {
		op := Op{Effect: FSDelete, Target: path}
		real, err := resolveOp(ctx, &op, false)
		if err != nil {
			return err
		}
		dirfd, base, err := openParent(real)
		if errors.Is(err, errRace) {
			return err
		}
		if err != nil {
			// Judge first: a refused path learns nothing of what is there.
			if aerr := o.auth.Authorize(ctx, op); aerr != nil {
				return aerr
			}
			return renamePath(err, path)
		}
		defer unix.Close(dirfd)
		st, serr := statAt(dirfd, base)
		op.Tree = recursive && serr == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
		o.lasting(op.Effect)
		if err := o.auth.Authorize(ctx, op); err != nil {
			return err
		}
		if serr != nil {
			return &fs.PathError{Op: "remove", Path: path, Err: serr}
		}
		if !op.Tree {
			// Judged as one name, so at most one name goes: a directory
			// swapped in since is removed only when empty.
			return removeNameAt(dirfd, base, path)
		}
		root, err := rootOf(filepath.Dir(real), dirfd)
		if err != nil {
			return err
		}
		defer root.Close()
		if err := root.RemoveAll(base); err != nil {
			return fmt.Errorf("remove %s: %w", path, err)
		}
		return nil
	})
}

// removeNameAt removes the name base in dirfd as os.Remove does: a file,
// else an empty directory.
func removeNameAt(dirfd int, base, path string) error {
	e1 := unix.Unlinkat(dirfd, base, 0)
	if e1 == nil {
		return nil
	}
	e2 := unix.Unlinkat(dirfd, base, unix.AT_REMOVEDIR)
	if e2 == nil {
		return nil
	}
	if e2 != unix.ENOTDIR {
		e1 = e2
	}
	return &fs.PathError{Op: "remove", Path: path, Err: e1}
}

// rootOf opens dir as an os.Root and checks that it is the directory held
// open as dirfd (a swap since then is errRace).
func rootOf(dir string, dirfd int) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, errRace
	}
	want, err := statAt(dirfd, "")
	if err != nil {
		root.Close()
		return nil, err
	}
	fi, err := root.Stat(".")
	if err != nil {
		root.Close()
		return nil, errRace
	}
	got, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || uint64(got.Dev) != uint64(want.Dev) || uint64(got.Ino) != uint64(want.Ino) {
		root.Close()
		return nil, errRace
	}
	return root, nil
}

func (o *OS) heldRename(ctx context.Context, from, to string) error {
	return retryHeld("rename", from, func() error {
		return o.heldPair(ctx, Op{Effect: FSDelete, Target: from}, Op{Effect: FSWrite, Target: to},
			func(fd int, fb string, td int, tb string) error {
				// As os.Rename: never replace a directory with something else.
				if st, err := statAt(td, tb); err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
					if sst, err := statAt(fd, fb); err != nil || !sameInode(&st, &sst) {
						return &os.LinkError{Op: "rename", Old: from, New: to, Err: unix.EEXIST}
					}
				}
				if err := unix.Renameat(fd, fb, td, tb); err != nil {
					return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
				}
				return nil
			})
	})
}

func (o *OS) heldLink(ctx context.Context, target, link string) error {
	return retryHeld("link", link, func() error {
		return o.heldPair(ctx, Op{Effect: FSRead, Target: target}, Op{Effect: FSWrite, Target: link},
			func(fd int, fb string, td int, tb string) error {
				if err := unix.Linkat(fd, fb, td, tb, 0); err != nil {
					return &os.LinkError{Op: "link", Old: target, New: link, Err: err}
				}
				return nil
			})
	})
}

// heldPair judges two name operations (neither following its final
// symlink), both before acting, and calls act with both parents held.
func (o *OS) heldPair(ctx context.Context, a, b Op, act func(int, string, int, string) error) error {
	ra, err := o.judge(ctx, a, false)
	if err != nil {
		return err
	}
	rb, err := o.judge(ctx, b, false)
	if err != nil {
		return err
	}
	fa, ba, err := openParent(ra)
	if err != nil {
		return renamePath(err, a.Target)
	}
	defer unix.Close(fa)
	fb, bb, err := openParent(rb)
	if err != nil {
		return renamePath(err, b.Target)
	}
	defer unix.Close(fb)
	return act(fa, ba, fb, bb)
}

// heldName judges op on a name (following a final symlink when follow)
// and calls act with the parent held and the final name.
func (o *OS) heldName(ctx context.Context, op Op, follow bool, act func(int, string) error) error {
	return retryHeld("open", op.Target, func() error {
		real, err := o.judge(ctx, op, follow)
		if err != nil {
			return err
		}
		dirfd, base, err := openParent(real)
		if err != nil {
			return renamePath(err, op.Target)
		}
		defer unix.Close(dirfd)
		return act(dirfd, base)
	})
}

func (o *OS) heldSymlink(ctx context.Context, target, link string) error {
	return o.heldName(ctx, Op{Effect: FSWrite, Target: link}, false, func(dirfd int, base string) error {
		if err := unix.Symlinkat(target, dirfd, base); err != nil {
			return &os.LinkError{Op: "symlink", Old: target, New: link, Err: err}
		}
		return nil
	})
}

func (o *OS) heldChtimes(ctx context.Context, path string, atime, mtime time.Time) error {
	ts := []unix.Timespec{timespecOf(atime), timespecOf(mtime)}
	// The real path's final name is no symlink, as judged; one swapped in
	// since has its own times set, never its target's.
	return o.heldName(ctx, Op{Effect: FSWrite, Target: path}, true, func(dirfd int, base string) error {
		if err := unix.UtimesNanoAt(dirfd, base, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return &fs.PathError{Op: "chtimes", Path: path, Err: err}
		}
		return nil
	})
}

// timespecOf is t for utimensat; the zero time leaves the time unchanged,
// as os.Chtimes does.
func timespecOf(t time.Time) unix.Timespec {
	if t.IsZero() {
		return unix.Timespec{Nsec: unix.UTIME_OMIT}
	}
	return unix.NsecToTimespec(t.UnixNano())
}

// heldCopy is Copy for a gated host: the source and destination are
// judged and then opened without following symlinks; a tree is walked
// from held directory descriptors.
func (o *OS) heldCopy(ctx context.Context, from, to string, recursive bool) error {
	return retryHeld("copy", from, func() error {
		src := Op{Effect: FSRead, Target: from}
		rfrom, err := resolveOp(ctx, &src, true)
		if err != nil {
			return err
		}
		pfd, perr := openHeld(unix.AT_FDCWD, rfrom, unix.O_PATH, 0)
		if errors.Is(perr, errRace) {
			return perr
		}
		var st unix.Stat_t
		if perr == nil {
			st, perr = statAt(pfd, "")
			unix.Close(pfd)
		}
		isDir := perr == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
		src.Tree = recursive && isDir
		if err := o.auth.Authorize(ctx, src); err != nil {
			return err
		}
		rto, err := o.judge(ctx, Op{Effect: FSWrite, Target: to, Tree: src.Tree}, true)
		if err != nil {
			return err
		}
		if perr != nil {
			return renamePath(perr, from)
		}
		if !isDir {
			return o.heldCopyFile(ctx, from, to, rfrom, rto, &st)
		}
		if !recursive {
			return &fs.PathError{Op: "copy", Path: from, Err: ErrIsDir}
		}
		if within(from, to) || within(rfrom, rto) {
			return &fs.PathError{Op: "copy", Path: to, Err: ErrSameFile}
		}
		sfd, err := openHeld(unix.AT_FDCWD, rfrom, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			return renamePath(err, from)
		}
		if now, err := statAt(sfd, ""); err != nil || !sameInode(&now, &st) {
			unix.Close(sfd)
			return errRace
		}
		perm := uint32(st.Mode & 0o777)
		dirfd, base, err := openParent(rto)
		if err != nil {
			unix.Close(sfd)
			return renamePath(err, to)
		}
		dfd, err := mkdirAt(dirfd, base, perm|0o700)
		unix.Close(dirfd)
		if err != nil {
			unix.Close(sfd)
			return renamePath(err, to)
		}
		return copyTreeHeld(ctx, sfd, dfd, perm, to, 0)
	})
}

// mkdirAt creates name in dirfd (an existing directory is fine) and opens
// it without following a symlink.
func mkdirAt(dirfd int, name string, perm uint32) (int, error) {
	if err := unix.Mkdirat(dirfd, name, perm); err != nil && err != unix.EEXIST {
		return -1, &fs.PathError{Op: "mkdir", Path: name, Err: err}
	}
	return openHeld(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
}

// heldCopyFile copies one judged file (st is what the gate's judgment
// found at rfrom) to rto.
func (o *OS) heldCopyFile(ctx context.Context, from, to, rfrom, rto string, st *unix.Stat_t) error {
	sfd, err := openHeld(unix.AT_FDCWD, rfrom, unix.O_RDONLY, 0)
	if err != nil {
		return renamePath(err, from)
	}
	srcF := os.NewFile(uintptr(sfd), from)
	defer srcF.Close()
	if now, err := statAt(sfd, ""); err != nil || !sameInode(&now, st) {
		return errRace
	}
	if dfd, err := openHeld(unix.AT_FDCWD, rto, unix.O_PATH, 0); err == nil {
		dst, serr := statAt(dfd, "")
		unix.Close(dfd)
		if serr == nil && sameInode(&dst, st) {
			return &fs.PathError{Op: "copy", Path: to, Err: ErrSameFile}
		}
	} else if errors.Is(err, errRace) {
		return err
	}
	perm := uint32(st.Mode & 0o777)
	dfd, err := openHeld(unix.AT_FDCWD, rto, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC, perm)
	if err != nil {
		return renamePath(err, to)
	}
	limit := int64(-1)
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		limit = o.maxRead
	}
	err = copyFds(ctx, srcF, dfd, perm, limit)
	if errors.Is(err, ErrTooLarge) {
		if dirfd, base, perr := openParent(rto); perr == nil {
			_ = unix.Unlinkat(dirfd, base, 0)
			unix.Close(dirfd)
		}
		return &fs.PathError{Op: "copy", Path: from, Err: err}
	}
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w", from, to, err)
	}
	return nil
}

// copyFds copies src into the open dfd (which it closes), setting perm;
// limit >= 0 bounds the bytes (past it: ErrTooLarge).
func copyFds(ctx context.Context, src *os.File, dfd int, perm uint32, limit int64) error {
	dst := os.NewFile(uintptr(dfd), "")
	var r io.Reader = ctxReader{ctx, src}
	if limit >= 0 {
		r = io.LimitReader(r, limit+1)
	}
	n, err := io.Copy(dst, r)
	if err == nil && limit >= 0 && n > limit {
		dst.Close()
		return fmt.Errorf("%w of %d bytes", ErrTooLarge, limit)
	}
	if err == nil {
		err = unix.Fchmod(dfd, perm)
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyTreeHeld copies the directory open as sfd into the one open as dfd
// (it closes both), entry by entry, never following a symlink: symlinks
// are copied as symlinks, as Copy documents.
func copyTreeHeld(ctx context.Context, sfd, dfd int, perm uint32, to string, depth int) error {
	srcDir := os.NewFile(uintptr(sfd), to)
	defer srcDir.Close()
	defer unix.Close(dfd)
	if depth > maxCopyDepth {
		return &fs.PathError{Op: "copy", Path: to, Err: fmt.Errorf("tree deeper than %d directories", maxCopyDepth)}
	}
	names, err := srcDir.Readdirnames(-1)
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		where := to + "/" + n
		st, err := statAt(sfd, n)
		if err != nil {
			return &fs.PathError{Op: "copy", Path: where, Err: err}
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			target, err := readlinkAt(sfd, n)
			if err != nil {
				return &fs.PathError{Op: "copy", Path: where, Err: err}
			}
			if err := unix.Unlinkat(dfd, n, 0); err != nil && err != unix.ENOENT {
				return &fs.PathError{Op: "copy", Path: where, Err: err}
			}
			if err := unix.Symlinkat(target, dfd, n); err != nil {
				return &os.LinkError{Op: "symlink", Old: target, New: where, Err: err}
			}
		case unix.S_IFDIR:
			sub, err := openHeld(sfd, n, unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				return renamePath(err, where)
			}
			p := uint32(st.Mode & 0o777)
			dsub, err := mkdirAt(dfd, n, p|0o700)
			if err != nil {
				unix.Close(sub)
				return renamePath(err, where)
			}
			if err := copyTreeHeld(ctx, sub, dsub, p, where, depth+1); err != nil {
				return err
			}
		case unix.S_IFREG:
			s, err := openHeld(sfd, n, unix.O_RDONLY, 0)
			if err != nil {
				return renamePath(err, where)
			}
			sf := os.NewFile(uintptr(s), where)
			p := uint32(st.Mode & 0o777)
			d, err := openHeld(dfd, n, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC, p)
			if err != nil {
				sf.Close()
				return renamePath(err, where)
			}
			err = copyFds(ctx, sf, d, p, -1)
			sf.Close()
			if err != nil {
				return fmt.Errorf("copy %s: %w", where, err)
			}
		default:
			return &fs.PathError{Op: "copy", Path: where, Err: errors.New("not a regular file, directory or symlink")}
		}
	}
	return unix.Fchmod(dfd, perm)
}

// readlinkAt reads the symlink name in dirfd.
func readlinkAt(dirfd int, name string) (string, error) {
	for size := 256; size <= 1<<16; size *= 4 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
	return "", unix.ENAMETOOLONG
}

// heldGlobFS is the globber's view of the tree beneath a judged root held
// open as fd: every path is opened relative to it with RESOLVE_BENEATH, so
// the walk follows symlinks only while they stay beneath the root.
type heldGlobFS struct {
	root string // the root as the pattern spells it (dir + literal prefix)
	fd   int
}

// rel is p relative to the root, or false when p is not beneath it.
func (h heldGlobFS) rel(p string) (string, bool) {
	if p == h.root {
		return ".", true
	}
	prefix := strings.TrimSuffix(h.root, "/") + "/"
	if !strings.HasPrefix(p, prefix) {
		return "", false
	}
	return p[len(prefix):], true
}

func (h heldGlobFS) open(p string, flags int) (int, error) {
	rel, ok := h.rel(p)
	if !ok {
		return -1, fs.ErrNotExist
	}
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(h.fd, rel, &how)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func (h heldGlobFS) readDir(p string) ([]fs.DirEntry, error) {
	fd, err := h.open(p, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

func (h heldGlobFS) stat(p string, follow bool) (fs.FileInfo, error) {
	flags := unix.O_PATH
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := h.open(p, flags)
	if err != nil {
		return nil, err
	}
	st, err := statAt(fd, "")
	unix.Close(fd)
	if err != nil {
		return nil, err
	}
	return &heldInfo{name: filepath.Base(p), st: st}, nil
}

// heldGlob judges root and expands the pattern beneath it through a held
// descriptor.
func (o *OS) heldGlob(ctx context.Context, root, pattern string, p globPattern, hidden bool) ([]string, error) {
	var out []string
	err := retryHeld("glob", root, func() error {
		real, err := o.judge(ctx, Op{Effect: FSRead, Target: root}, true)
		if err != nil {
			return err
		}
		if len(p.segs) == 0 {
			fd, err := openHeld(unix.AT_FDCWD, real, unix.O_PATH, 0)
			if errors.Is(err, errRace) {
				return err
			}
			if err != nil {
				return nil
			}
			st, err := statAt(fd, "")
			unix.Close(fd)
			if err == nil && (!p.dirOnly || st.Mode&unix.S_IFMT == unix.S_IFDIR) {
				out = []string{pattern}
			}
			return nil
		}
		fd, err := openHeld(unix.AT_FDCWD, real, unix.O_PATH|unix.O_DIRECTORY, 0)
		if errors.Is(err, errRace) {
			return err
		}
		if err != nil {
			return nil // unreadable or not a directory: no matches
		}
		defer unix.Close(fd)
		h := heldGlobFS{root: root, fd: fd}
		g := globber{ctx: ctx, hidden: hidden, dirOnly: p.dirOnly, fs: globFS{readDir: h.readDir, stat: h.stat}, allow: o.globAllow(ctx, root)}
		if err := g.expand(root, p.prefix, p.segs); err != nil {
			return err
		}
		out = g.out
		return nil
	})
	return out, err
}
