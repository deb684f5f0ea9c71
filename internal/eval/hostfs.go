package eval

import (
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/leash"
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

func registerHostfs(p *Part) {
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
	p.Method(&Method{Kind: anyKind, Name: "save", Call: save(false), Effects: effSaveMethod,
		Help: Help{Summary: "write the value to a file (text as is, other values as JSON) and return it", Usage: "VALUE.save(PATH)", Example: "{ok: true}.save(\"out.json\")"}})
	p.Method(&Method{Kind: anyKind, Name: "append", Call: save(true), Effects: effSaveMethod,
		Help: Help{Summary: "append the value to a file and return it", Usage: "VALUE.append(PATH)", Example: "\"one more line\\n\".append(\"notes.txt\")"}})

	// pathMethod registers a path method that takes no arguments and
	// declares its effects with eff: effReadsReceiver for one that reads
	// the file system at the path, EffNone for one that looks at the text.
	pathMethod := func(name string, eff func(*leash.Deriver), summary, example string, f func(t *thread, p string) (value.Value, error)) {
		p.Method(&Method{Kind: value.KPath, Name: name, Effects: eff,
			Help: Help{Summary: summary, Usage: "PATH." + name + "()", Example: example},
			Call: func(c *MethodCall, recv value.Value, a value.Args) (value.Value, error) {
				if len(a.Pos) > 0 || len(a.Named) > 0 {
					return nil, errorf(codeArg, ".%s takes no arguments", name)
				}
				return f(c.t, string(recv.(value.Path)))
			}})
	}
	// The predicates answer false for a path that cannot be stat'ed, but a
	// refusal or cancellation is an error, never a silent false.
	pathMethod("exists", effReadsReceiver, "whether something exists at the path", "path(\"notes.txt\").exists()", func(t *thread, p string) (value.Value, error) {
		_, err := t.host.Stat(t.ctx, t.abs(p))
		if gateStop(err) {
			return nil, hostError(err)
		}
		return value.Bool(err == nil), nil
	})
	pathMethod("is_file", effReadsReceiver, "whether the path is a regular file", "path(\"notes.txt\").is_file()", func(t *thread, p string) (value.Value, error) {
		fi, err := t.host.Stat(t.ctx, t.abs(p))
		if gateStop(err) {
			return nil, hostError(err)
		}
		return value.Bool(err == nil && fi.Mode().IsRegular()), nil
	})
	pathMethod("is_dir", effReadsReceiver, "whether the path is a directory", "path(\"src\").is_dir()", func(t *thread, p string) (value.Value, error) {
		fi, err := t.host.Stat(t.ctx, t.abs(p))
		if gateStop(err) {
			return nil, hostError(err)
		}
		return value.Bool(err == nil && fi.IsDir()), nil
	})
	pathMethod("size", effReadsPathReceiver, "the size of the file at the path", "path(\"notes.txt\").size()", func(t *thread, p string) (value.Value, error) {
		fi, err := t.host.Stat(t.ctx, t.abs(p))
		if err != nil {
			return nil, hostError(err)
		}
		return value.Size(fi.Size()), nil
	})
	pathMethod("read", effReadsReceiver, "the file's contents as text (UTF-8)", "path(\"notes.txt\").read()", func(t *thread, p string) (value.Value, error) {
		s, err := t.readText(p)
		if err != nil {
			return nil, err
		}
		return value.Str(s), nil
	})
	pathMethod("read_bytes", effReadsReceiver, "the file's contents as bytes", "path(\"notes.txt\").read_bytes()", func(t *thread, p string) (value.Value, error) {
		data, err := t.host.ReadFile(t.ctx, t.abs(p))
		if err != nil {
			return nil, hostError(err)
		}
		return value.Bytes(data), nil
	})
	pathMethod("lines", effReadsReceiver, "the file's lines", "path(\"notes.txt\").lines()", func(t *thread, p string) (value.Value, error) {
		s, err := t.readText(p)
		if err != nil {
			return nil, err
		}
		return splitLines(s), nil
	})
	pathMethod("abs", EffNone, "the path made absolute against the working directory", "path(\"notes.txt\").abs()", func(t *thread, p string) (value.Value, error) {
		return value.Path(t.abs(p)), nil
	})
	pathMethod("modified", effReadsReceiver, "when the file was last modified", "path(\"notes.txt\").modified()", func(t *thread, p string) (value.Value, error) {
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
		return "", errorf(value.CodeUTF8, "%s is not valid UTF-8", filepath.Base(p)).
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
