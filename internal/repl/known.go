package repl

import (
	"context"
	"io/fs"
	"strings"
	"sync"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
)

// builtinHeads is every builtin command and function name of r.
func builtinHeads(r *eval.Registry) map[string]bool {
	m := map[string]bool{}
	for _, n := range r.BuiltinNames() {
		m[n] = true
	}
	for _, n := range r.FuncNames() {
		m[n] = true
	}
	return m
}

// Known returns a test of whether a statement's head names a command the
// session in would run: a builtin, a function or alias it defines, or a
// program on its PATH (listed through h and kept until PATH changes, as
// completion does). The line editor's highlighter asks it on each
// keystroke, so it reads no directory while PATH stays the same.
func (c *Completer) Known(ctx context.Context, in *eval.Interp, h host.Host) func(name string) bool {
	var mu sync.Mutex
	var key string
	var set map[string]bool
	heads := builtinHeads(in.Registry())
	return func(name string) bool {
		if heads[name] {
			return true
		}
		if _, ok := in.Lookup(name); ok {
			return true
		}
		path := ""
		for _, kv := range in.Environ() {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				path = v
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if set == nil || key != path {
			readDir := func(d string) ([]fs.DirEntry, error) { return h.ReadDir(ctx, d) }
			set = map[string]bool{}
			for _, n := range c.pathCommands(path, readDir) {
				set[n] = true
			}
			key = path
		}
		return set[name]
	}
}
