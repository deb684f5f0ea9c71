package repl

import (
	"context"
	"io/fs"
	"strings"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// Context is what completion knows of the session in: its bindings,
// functions and aliases, environment and directory, and listings through
// h (the session's gate).
func Context(ctx context.Context, in *eval.Interp, h host.Host) complete.Context {
	bs := in.Bindings()
	var names, commands []string
	kinds := map[string]value.Kind{}
	fields := map[string][]string{}
	for _, b := range bs {
		if b.Callable {
			commands = append(commands, b.Name)
			continue
		}
		names = append(names, b.Name)
		if b.Value != nil {
			kinds[b.Name] = b.Value.Kind()
		}
		if r, ok := b.Value.(*value.Record); ok {
			fields[b.Name] = r.Keys()
		}
	}
	env := in.Environ()
	home := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	return complete.Context{
		Names:      func() []string { return names },
		Builtins:   eval.BuiltinNames,
		Commands:   func() []string { return commands },
		Methods:    eval.MethodNames,
		KindOf:     func(n string) (value.Kind, bool) { k, ok := kinds[n]; return k, ok },
		Fields:     func(n string) []string { return fields[n] },
		Namespaces: eval.NamespaceNames,
		Members:    eval.NamespaceMembers,
		EnvNames:   func() []string { return complete.EnvNames(env) },
		Dir:        in.Dir(),
		Home:       home,
		ReadDir:    func(d string) ([]fs.DirEntry, error) { return h.ReadDir(ctx, d) },
	}
}

// Complete answers a line editor's request to complete line at byte
// offset pos: the text before and after the part being replaced, and the
// candidates for it. Candidates that would replace a different part of the
// line than the first one are left out (an editor replaces one span).
func Complete(line string, pos int, cc complete.Context) (head string, completions []string, tail string) {
	pos = min(max(pos, 0), len(line))
	cands := complete.Complete(line, pos, cc)
	if len(cands) == 0 {
		return line[:pos], nil, line[pos:]
	}
	span := cands[0].Replace
	start, end := int(span.Start), int(span.End)
	if start < 0 || end > len(line) || start > end {
		return line[:pos], nil, line[pos:]
	}
	// The editor replaces the span with the candidates' common prefix, so
	// a candidate that does not start with what was typed (a near match)
	// would erase it: only those that do are offered, and none rather
	// than erase the word.
	typed := line[start:min(pos, end)]
	if pos < start {
		typed = ""
	}
	for _, c := range cands {
		if c.Replace == span && strings.HasPrefix(c.Label, typed) {
			completions = append(completions, c.Label)
		}
	}
	if len(completions) == 0 {
		return line[:pos], nil, line[pos:]
	}
	return line[:start], completions, line[end:]
}
