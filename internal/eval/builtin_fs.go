package eval

// Filesystem builtins: shared argument handling, error shaping and the
// metadata row used by ls and stat. The commands themselves live in the
// other builtin_fs_*.go files; every effect goes through Context.Host with
// absolute paths from Context.Abs.

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// Error codes the filesystem builtins raise.
const (
	bfsCustom    = value.CodeCustom
	bfsArgError  = value.CodeArg
	bfsTypeError = value.CodeType
	bfsNoMatches = value.CodeNoMatches
)

// bfsFail shapes an error from a host call made on behalf of builtin c
// for the user-written path name. Refusals, cancellation and language
// errors pass through unchanged; every other filesystem failure becomes a
// `custom` language error naming the path, as the corpus expects.
func bfsFail(c *BuiltinCall, name string, err error) error {
	if err == nil {
		return nil
	}
	var ve *value.Error
	if errors.As(err, &ve) {
		return ve
	}
	if PassThrough(err) {
		return err
	}
	return c.Errorf(bfsCustom, "%s: %s", name, OSReason(err))
}

// PassThrough reports whether err must reach the caller unchanged: a
// host refusal or a cancelled evaluation. A builtin that shapes host
// errors into language errors leaves these as they are.
func PassThrough(err error) bool {
	return errors.Is(err, host.ErrDenied) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// OSReason is the OS reason of err, without the operation and path that
// the message already names.
func OSReason(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// PathText renders one path-like argument (str or path) as path text; any
// other value is a type_error.
func (c *BuiltinCall) PathText(v value.Value) (string, error) {
	switch x := v.(type) {
	case value.Str:
		return string(x), nil
	case value.Path:
		return string(x), nil
	}
	return "", c.Errorf(bfsTypeError, "expected a path or str argument, got %s", value.TypeName(v))
}

// bfsPaths collects the positional arguments as path texts: strings and
// paths as written, glob values expanded against the working directory,
// lists of strings or paths spread.
func bfsPaths(c *BuiltinCall) ([]string, error) {
	out := make([]string, 0, len(c.Args))
	for _, a := range c.Args {
		switch x := a.(type) {
		case *value.Glob:
			ms, err := c.Host().Glob(c.Ctx(), c.Dir(), x.Pattern, x.Hidden)
			if err != nil {
				return nil, bfsFail(c, x.Pattern, err)
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
var bfsCols = []string{"path", "name", "type", "size", "modified"}

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
	t := &value.Table{Cols: bfsCols, Data: make([][]value.Value, len(bfsCols)), N: len(rows)}
	for c := range bfsCols {
		col := make([]value.Value, len(rows))
		for r, row := range rows {
			col[r] = row[c]
		}
		t.Data[c] = col
	}
	return t
}
