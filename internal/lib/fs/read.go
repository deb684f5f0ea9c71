package fs

// Read-only filesystem builtins: ls, stat, cat, head.

import (
	"bytes"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

func registerRead(p *eval.Part) {
	p.Builtin(&eval.Builtin{Name: "ls", Help: eval.Help{Summary: "list directory entries as a table: path, name, type, size, modified", Usage: "ls [-a] [PATH...]", Example: "ls\nls src --all\nls.where(.size > 1kb).sort_by(.modified)"}, Run: bfsLs, Flags: []leash.FlagSpec{{Long: "all", Short: "a"}, lsLong()}, Effects: effLs})
	p.Builtin(&eval.Builtin{Name: "stat", Help: eval.Help{Summary: "the metadata of paths: one record, or a table for several", Usage: "stat PATH...", Example: "stat README.md\n(stat README.md).size"}, Run: bfsStat, Effects: eval.EffReads})
	p.Builtin(&eval.Builtin{Name: "cat", Help: eval.Help{Summary: "the bytes of files, concatenated", Usage: "cat PATH...", Example: "cat notes.txt\n(cat data.json).out.str()"}, Run: bfsCat, Effects: eval.EffReads})
	p.Builtin(&eval.Builtin{Name: "head", Help: eval.Help{Summary: "the first lines of a file (10 by default), reading only its start", Usage: "head PATH [COUNT]", Example: "head README.md\nhead notes.txt 3"}, Run: bfsHead, Effects: effHead})
}

// lsLong is -l (--long), accepted so that `ls -la` works as typed: every
// listing already has the long form's columns (a table of path, name,
// type, size, modified), so it changes nothing.
func lsLong() leash.FlagSpec { return leash.FlagSpec{Long: "long", Short: "l"} }

// effLs: the positional paths, or the working directory.
func effLs(d *leash.Deriver) {
	if !d.PathArgs(host.FSRead, leash.Reversible) {
		d.PathText(".", host.FSRead, leash.Reversible)
	}
}

// effHead: head PATH [COUNT] reads its first argument.
func effHead(d *leash.Deriver) {
	if ps := d.Positional(); len(ps) > 0 {
		d.Path(ps[0], host.FSRead, leash.Reversible)
	}
}

// bfsLs lists directories (their immediate children) and describes other
// paths as one row each; hidden entries need -a. Rows are sorted by path
// in natural order (file_7 before file_69; value.NaturalLess).
func bfsLs(c *eval.BuiltinCall) (value.Value, error) {
	all := c.Flag("all")
	args, err := bfsPaths(c)
	if err != nil {
		return nil, err
	}
	listCwd := len(args) == 0
	if listCwd {
		args = []string{"."}
	}
	var rows [][]value.Value
	for _, p := range args {
		abs := c.Abs(p)
		fi, err := c.Host().Stat(c.Ctx(), abs)
		if err != nil {
			if eval.PassThrough(err) {
				return nil, err
			}
			// A dangling symlink still has a row of its own.
			lfi, lerr := c.Host().Lstat(c.Ctx(), abs)
			if lerr != nil {
				return nil, c.FileError(p, err)
			}
			rows = append(rows, bfsRow(p, lfi))
			continue
		}
		if !fi.IsDir() {
			if lfi, err := c.Host().Lstat(c.Ctx(), abs); err == nil {
				fi = lfi
			}
			rows = append(rows, bfsRow(p, fi))
			continue
		}
		entries, err := c.Host().ReadDir(c.Ctx(), abs)
		if err != nil {
			return nil, c.FileError(p, err)
		}
		for _, e := range entries {
			name := e.Name()
			if !all && strings.HasPrefix(name, ".") {
				continue
			}
			// The entry's metadata comes with the listing the host
			// authorised for this directory.
			info, err := e.Info()
			if err != nil {
				continue // vanished between listing and stat
			}
			rp := name
			if !listCwd {
				rp = filepath.Join(p, name)
			}
			rows = append(rows, bfsRow(rp, info))
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		return value.NaturalLess(string(rows[i][0].(value.Path)), string(rows[j][0].(value.Path)))
	})
	return bfsTable(rows), nil
}

// bfsStat describes each path without following a final symlink: one
// record for one path, a table for several.
func bfsStat(c *eval.BuiltinCall) (value.Value, error) {
	args, err := bfsPaths(c)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, c.Errorf(bfsArgError, "needs at least one path").WithHint("stat PATH...")
	}
	rows := make([][]value.Value, 0, len(args))
	for _, p := range args {
		fi, err := c.Host().Lstat(c.Ctx(), c.Abs(p))
		if err != nil {
			return nil, c.FileError(p, err)
		}
		rows = append(rows, bfsRow(p, fi))
	}
	if len(rows) == 1 {
		return value.NewRecord(bfsCols(), rows[0]), nil
	}
	return bfsTable(rows), nil
}

// bfsCat concatenates the bytes of every file. With no path and fed
// input it passes the input through, the way a fed external cat would.
func bfsCat(c *eval.BuiltinCall) (value.Value, error) {
	args, err := bfsPaths(c)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		if c.Stdin != nil {
			return bfsStdinOut(c.Stdin), nil
		}
		return nil, c.Errorf(bfsArgError, "needs at least one path").WithHint("cat PATH...")
	}
	var buf []byte
	for _, p := range args {
		data, err := c.Host().ReadFile(c.Ctx(), c.Abs(p))
		if err != nil {
			return nil, c.FileError(p, err)
		}
		if len(args) == 1 {
			buf = data
			break
		}
		buf = append(buf, data...)
	}
	return value.Bytes(buf), nil
}

// bfsStdinOut is the payload of passed-through input: parsed JSON when it
// holds an object or array, else text without one trailing newline (bytes
// when it is not UTF-8).
func bfsStdinOut(in []byte) value.Value {
	trimmed := bytes.TrimSpace(in)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		if v, err := value.ParseJSON(trimmed); err == nil && v != nil {
			return v
		}
	}
	if !utf8.Valid(in) {
		return value.Bytes(in)
	}
	s := strings.TrimSuffix(string(in), "\n")
	return value.Str(strings.TrimSuffix(s, "\r"))
}

// bfsHead returns the first COUNT (default 10) lines of one file, decoded
// lossily.
func bfsHead(c *eval.BuiltinCall) (value.Value, error) {
	if len(c.Args) == 0 {
		return nil, c.Errorf(bfsArgError, "needs a path").WithHint("head PATH [COUNT]")
	}
	p, err := c.PathText(c.Args[0])
	if err != nil {
		return nil, err
	}
	n := 10
	if len(c.Args) > 1 {
		if n, err = bfsCount(c, c.Args[1]); err != nil {
			return nil, err
		}
	}
	// Read a growing prefix until it holds n lines or the file ends, so
	// head of a huge (or endless) file reads little of it.
	for size := int64(64 << 10); ; size *= 16 {
		data, more, err := c.Host().ReadPrefix(c.Ctx(), c.Abs(p), size)
		if err != nil {
			return nil, c.FileError(p, err)
		}
		if !more || int64(len(data)) < size || bytes.Count(data, []byte{'\n'}) >= n {
			return bfsLines(data, n), nil
		}
	}
}

// bfsCount reads head's line count: an int or a decimal string, >= 0.
func bfsCount(c *eval.BuiltinCall, v value.Value) (int, error) {
	var n int64
	switch x := v.(type) {
	case value.Int:
		n = int64(x)
	case value.Str:
		i, err := strconv.ParseInt(strings.TrimSpace(string(x)), 10, 64)
		if err != nil {
			return 0, c.Errorf(bfsArgError, "line count %q is not a number", string(x))
		}
		n = i
	default:
		return 0, c.Errorf(bfsTypeError, "line count must be an int, got %s", value.TypeName(v))
	}
	if n < 0 {
		return 0, c.Errorf(bfsArgError, "line count must not be negative, got %d", n)
	}
	return int(min(n, int64(1<<31-1))), nil
}

// bfsLines splits data into at most n logical lines: "\n" separated, a
// trailing "\r" dropped, no empty line after a final newline.
func bfsLines(data []byte, n int) *value.List {
	items := make([]value.Value, 0, min(n, 64))
	for len(data) > 0 && len(items) < n {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		items = append(items, value.Str(strings.ToValidUTF8(string(line), "\uFFFD")))
	}
	return value.NewList(items)
}

// bfsIsDir reports whether abs is a directory (following symlinks). A
// missing or unreadable path is not one; refusals and cancellation are
// returned.
func bfsIsDir(c *eval.BuiltinCall, abs string) (bool, error) {
	fi, err := c.Host().Stat(c.Ctx(), abs)
	if err != nil {
		if eval.PassThrough(err) {
			return false, err
		}
		return false, nil
	}
	return fi.IsDir(), nil
}
