package eval

// Globs expanded against the working directory, and values written to
// files: what the language does with the file system itself (a glob
// argument, save(path, value), a stream's .save). The file system
// commands and path methods are internal/lib/fs.

import "github.com/shoalgo/shoal/internal/value"

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
