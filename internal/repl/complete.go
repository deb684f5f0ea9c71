package repl

import (
	"context"
	"io/fs"
	"strings"
	"sync"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// Completer builds completion contexts for one session and keeps the
// programs on PATH between requests (listed again when PATH changes), so
// Tab does not read every PATH directory each time. The zero value is
// ready; a nil one lists PATH on every request.
type Completer struct {
	mu       sync.Mutex
	pathKey  string
	pathList []string
	listed   bool
}

// pathCommands lists the programs on path through readDir, cached.
func (c *Completer) pathCommands(path string, readDir func(string) ([]fs.DirEntry, error)) []string {
	if c == nil {
		return complete.PathCommandNames(path, readDir)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.listed || c.pathKey != path {
		c.pathList = complete.PathCommandNames(path, readDir)
		c.pathKey, c.listed = path, true
	}
	return c.pathList
}

// Context is what completion knows of the session in: its bindings,
// functions and aliases, builtins and their flags, the programs on the
// session's PATH, environment and directory, and listings through h (the
// session's gate).
func (c *Completer) Context(ctx context.Context, in *eval.Interp, h host.Host) complete.Context {
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
	home, path := "", ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	readDir := func(d string) ([]fs.DirEntry, error) { return h.ReadDir(ctx, d) }
	reg := in.Registry()
	return complete.Context{
		Names:    func() []string { return names },
		Builtins: reg.BuiltinNames,
		Commands: func() []string { return commands },
		PathCommands: func() []string {
			return c.pathCommands(path, readDir)
		},
		Flags:       reg.BuiltinFlags,
		Subcommands: in.Adapters().Subcommands,
		Methods:     reg.MethodNames,
		KindOf:      func(n string) (value.Kind, bool) { k, ok := kinds[n]; return k, ok },
		Fields:      func(n string) []string { return fields[n] },
		Namespaces:  reg.NamespaceNames,
		Members:     reg.NamespaceMembers,
		EnvNames:    func() []string { return complete.EnvNames(env) },
		Dir:         in.Dir(),
		Home:        home,
		ReadDir:     readDir,
	}
}
