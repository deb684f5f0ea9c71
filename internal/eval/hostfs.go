package eval

import (
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/value"
)

// globStrings expands a glob against the working directory.
func (t *thread) globStrings(g *value.Glob) ([]string, error) {
	pattern := t.expandHome(g.Pattern)
	matches, err := t.host.Glob(t.ctx, t.dir, pattern, g.Hidden)
	if err != nil {
		return nil, hostError(err)
	}
	return matches, nil
}

// expandGlob expands a glob into a sorted list of paths.
func (t *thread) expandGlob(g *value.Glob) (*value.List, error) {
	matches, err := t.globStrings(g)
	if err != nil {
		return nil, err
	}
	items := make([]value.Value, len(matches))
	for i, m := range matches {
		items[i] = value.Path(m)
	}
	return value.NewList(items), nil
}

// fileBytes renders a value for writing to a file.
func (t *thread) fileBytes(v value.Value) ([]byte, error) {
	switch x := v.(type) {
	case value.Str:
		return []byte(x), nil
	case value.Bytes:
		return []byte(x), nil
	case *value.List, *value.Record, *value.Table:
		return t.compactJSON(v)
	case *value.Outcome:
		if !x.Builtin {
			return x.Stdout, nil
		}
		out, err := t.outcomeOut(x)
		if err != nil {
			return nil, err
		}
		return t.fileBytes(out)
	case value.Path:
		return nil, errorf(codeType, "cannot save a path: a path is a name, not its content").
			WithHint("copy files with cp, or save path.read")
	}
	return []byte(value.Inline(v)), nil
}

// saveValue writes v to the file p (relative to the working directory).
func (t *thread) saveValue(v value.Value, p string, appendTo bool) error {
	data, err := t.fileBytes(v)
	if err != nil {
		return err
	}
	undoLose(t.ctx, "save")
	if err := t.host.WriteFile(t.ctx, t.abs(p), data, appendTo); err != nil {
		return hostError(err)
	}
	return nil
}

func registerHostfs() {
	save := func(appendTo bool) HostMethod {
		return func(c *MethodCall, recv value.Value, a value.Args) (value.Value, error) {
			if len(a.Pos) != 1 || len(a.Named) > 0 {
				return nil, errorf(codeArg, ".%s takes one path", c.Name)
			}
			p, err := pathText(a.Pos[0])
			if err != nil {
				return nil, err
			}
			return recv, c.t.saveValue(recv, p, appendTo)
		}
	}
	RegisterHostMethodAll("save", save(false))
	RegisterHostMethodAll("append", save(true))

	pathMethod := func(name string, f func(t *thread, p string) (value.Value, error)) {
		RegisterHostMethod(value.KPath, name, func(c *MethodCall, recv value.Value, a value.Args) (value.Value, error) {
			if len(a.Pos) > 0 || len(a.Named) > 0 {
				return nil, errorf(codeArg, ".%s takes no arguments", name)
			}
			return f(c.t, string(recv.(value.Path)))
		})
	}
	// The predicates answer false for a path that cannot be stat'ed, but a
	// refusal or cancellation is an error, never a silent false.
	pathMethod("exists", func(t *thread, p string) (value.Value, error) {
		_, err := t.host.Stat(t.ctx, t.abs(p))
		if gateStop(err) {
			return nil, hostError(err)
		}
		return value.Bool(err == nil), nil
	})
	pathMethod("is_file", func(t *thread, p string) (value.Value, error) {
		fi, err := t.host.Stat(t.ctx, t.abs(p))
		if gateStop(err) {
			return nil, hostError(err)
		}
		return value.Bool(err == nil && fi.Mode().IsRegular()), nil
	})
	pathMethod("is_dir", func(t *thread, p string) (value.Value, error) {
		fi, err := t.host.Stat(t.ctx, t.abs(p))
		if gateStop(err) {
			return nil, hostError(err)
		}
		return value.Bool(err == nil && fi.IsDir()), nil
	})
	pathMethod("size", func(t *thread, p string) (value.Value, error) {
		fi, err := t.host.Stat(t.ctx, t.abs(p))
		if err != nil {
			return nil, hostError(err)
		}
		return value.Size(fi.Size()), nil
	})
	pathMethod("read", func(t *thread, p string) (value.Value, error) {
		s, err := t.readText(p)
		if err != nil {
			return nil, err
		}
		return value.Str(s), nil
	})
	pathMethod("read_bytes", func(t *thread, p string) (value.Value, error) {
		data, err := t.host.ReadFile(t.ctx, t.abs(p))
		if err != nil {
			return nil, hostError(err)
		}
		return value.Bytes(data), nil
	})
	pathMethod("lines", func(t *thread, p string) (value.Value, error) {
		s, err := t.readText(p)
		if err != nil {
			return nil, err
		}
		return splitLines(s), nil
	})
	pathMethod("abs", func(t *thread, p string) (value.Value, error) {
		return value.Path(t.abs(p)), nil
	})
	pathMethod("modified", func(t *thread, p string) (value.Value, error) {
		fi, err := t.host.Stat(t.ctx, t.abs(p))
		if err != nil {
			return nil, hostError(err)
		}
		return value.DateTime{T: fi.ModTime()}, nil
	})
}

func (t *thread) readText(p string) (string, error) {
	data, err := t.host.ReadFile(t.ctx, t.abs(p))
	if err != nil {
		return "", hostError(err)
	}
	if !utf8.Valid(data) {
		return "", errorf("utf8_error", "%s is not valid UTF-8", filepath.Base(p)).
			WithHint("read raw content with .read_bytes()")
	}
	return string(data), nil
}

func splitLines(s string) *value.List {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return value.NewList(nil)
	}
	parts := strings.Split(s, "\n")
	items := make([]value.Value, len(parts))
	for i, l := range parts {
		items[i] = value.Str(strings.TrimSuffix(l, "\r"))
	}
	return value.NewList(items)
}
