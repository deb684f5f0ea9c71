package eval

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
)

// Audit lists what is wrong with r's entries, sorted, none when every
// entry is complete: a builtin, value function, method or namespace member
// without an effect declaration (it would plan as opaque), a builtin,
// function, method with code or namespace member whose help lacks a summary, usage or
// example (or whose example does not parse), and a name `help` cannot
// answer. eval's own tests hold its parts to the same rules entry by
// entry; internal/stdlib's test calls Audit on the whole standard
// registry, so an entry of any library package is held to them too.
func (r *Registry) Audit() []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	help := func(kind, name string, h Help) {
		switch {
		case h.Summary == "" || h.Usage == "" || h.Example == "":
			bad("%s %s lacks help (Summary, Usage and Example)", kind, name)
		case strings.Contains(h.Summary, "\n"):
			bad("%s %s: the summary is not one line", kind, name)
		default:
			if _, err := syntax.Parse(h.Example, syntax.ParseOptions{}); err != nil {
				bad("%s %s: the example does not parse: %v", kind, name, err)
			}
		}
	}
	names := r.names()
	for name, b := range r.builtins {
		if b.Effects == nil {
			bad("builtin %s has no effect declaration", name)
		}
		help("builtin", name, b.Help)
	}
	for name, f := range r.funcs {
		if f.Effects == nil {
			bad("value function %s has no effect declaration", name)
		}
		help("function", name, f.Help)
	}
	for k, set := range r.methods {
		for name, m := range set {
			if m.Effects == nil {
				bad("method %s.%s has no effect declaration", kindName(k), name)
			}
			if m.Call != nil {
				help("method", kindName(k)+"."+name, m.Help)
			}
			names = append(names, name)
		}
	}
	for name, ns := range r.namespaces {
		if !ns.Pure {
			if len(ns.Members) == 0 {
				bad("namespace %s is neither pure nor has member entries", name)
			}
			names = append(names, name)
		}
		for _, m := range ns.Members {
			if m.Effects == nil {
				bad("member %s.%s has no effect declaration", name, m.Name)
			}
			help("member", name+"."+m.Name, m.Help)
			names = append(names, name+"."+m.Name)
		}
	}
	for _, name := range names {
		if _, ok := r.helpFor(name); !ok {
			bad("help %s: no answer", name)
		}
	}
	sort.Strings(out)
	return out
}
