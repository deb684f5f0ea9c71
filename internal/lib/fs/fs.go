// Package fs is Shoal's file system library, one file a job:
//
//   - read.go: ls, stat, cat, head
//   - write.go: mkdir, touch, cp, mv, ln and the save command
//   - rm.go: rm, into the session's trash or, with --permanent, for good
//   - open.go: open, with the desktop's opener
//   - path.go: the path methods on the text (name, stem, ext, parent, join)
//   - methods.go: the path methods on the file system (exists, is_file,
//     is_dir, size, read, read_bytes, lines, abs, modified) and
//     VALUE.save / VALUE.append
//   - watch.go: the live sources watch and tail
//   - fs.go: what they share (path arguments, the ls/stat row, errors)
//
// Every effect goes through eval's Context.Host with absolute paths from
// Context.Abs, so the host gate sees it. The package keeps no state of its
// own: rm's trash directory token belongs to the part Register fills. Its
// entries are one registry part, which internal/stdlib joins with the
// others; its transcript tests are testdata/*.txt, run by
// internal/evaltest.
package fs

// Shared argument handling and the metadata row used by ls and stat.

import (
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

// Error codes the file system library raises (the language's codes; see
// `help errors`).
const (
	bfsCustom    = value.CodeCustom
	bfsArgError  = value.CodeArg
	bfsTypeError = value.CodeType
	bfsNoMatches = value.CodeNoMatches
	bfsTooLarge  = value.CodeTooLarge
	bfsUTF8      = value.CodeUTF8
)

// flagRecursive is the -r (-R, --recursive) flag of rm and cp.
func flagRecursive() leash.FlagSpec { return leash.FlagSpec{Long: "recursive", Short: "rR"} }

// Register adds the file system library's entries to p. Its rm has a
// trash directory of its own (a fresh token) under each session's trash
// root.
func Register(p *eval.Part) {
	registerOpen(p)
	registerPath(p)
	registerRead(p)
	registerRm(p, newTrash())
	registerWrite(p)
	registerMethods(p)
	registerWatch(p)
}

// Part is the file system library's registry part, for eval.NewRegistry.
func Part() *eval.Part {
	p := &eval.Part{}
	Register(p)
	return p
}

// bfsPaths collects the positional arguments as path texts: strings and
// paths as written, glob values expanded against the working directory,
// lists of strings or paths spread.
func bfsPaths(c *eval.BuiltinCall) ([]string, error) {
	out := make([]string, 0, len(c.Args))
	for _, a := range c.Args {
		switch x := a.(type) {
		case *value.Glob:
			ms, err := c.Host().Glob(c.Ctx(), c.Dir(), x.Pattern, x.Hidden)
			if err != nil {
				return nil, c.FileError(x.Pattern, err)
			}
			out = append(out, ms...)
		case *value.List:
			for _, it := range x.Items {
				s, err := c.PathText(it)
				if err != nil {
					return nil, err
				}
				out = append(out, s)
			}
		default:
			s, err := c.PathText(a)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// bfsPathList turns path texts into a list of path values.
func bfsPathList(ps []string) *value.List {
	items := make([]value.Value, len(ps))
	for i, p := range ps {
		items[i] = value.Path(p)
	}
	return value.NewList(items)
}

// bfsIntoDir is the destination for src when dest is a directory: the
// source's base name inside it, spelled from dest as written.
func bfsIntoDir(dest, src string) string {
	return filepath.Join(dest, filepath.Base(filepath.Clean(src)))
}

// bfsCols are the columns of an ls/stat row.
func bfsCols() []string { return []string{"path", "name", "type", "size", "modified"} }

// bfsRow is the metadata row for the file at path p (as written).
func bfsRow(p string, fi fs.FileInfo) []value.Value {
	name := fi.Name()
	if base := filepath.Base(p); base != "." && base != "/" && base != ".." {
		name = base
	}
	var mod value.Value = value.Nil
	if t := fi.ModTime(); !t.IsZero() {
		mod = value.DateTime{T: t}
	}
	return []value.Value{
		value.Path(p),
		value.Str(strings.ToValidUTF8(name, "\uFFFD")),
		value.Str(bfsType(fi.Mode())),
		value.Size(fi.Size()),
		mod,
	}
}

// bfsType names a file mode the way ls and stat report it.
func bfsType(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsDir():
		return "dir"
	case m.IsRegular():
		return "file"
	}
	return "other"
}

// bfsTable builds a table from rows of bfsCols.
func bfsTable(rows [][]value.Value) *value.Table {
	cols := bfsCols()
	t := &value.Table{Cols: cols, Data: make([][]value.Value, len(cols)), N: len(rows)}
	for c := range cols {
		col := make([]value.Value, len(rows))
		for r, row := range rows {
			col[r] = row[c]
		}
		t.Data[c] = col
	}
	return t
}
