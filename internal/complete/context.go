package complete

import (
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/shoalgo/shoal/internal/namespaces"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Candidate kinds.
const (
	KindBuiltin   = "builtin"
	KindVariable  = "variable"
	KindFunction  = "function"
	KindMethod    = "method"
	KindPath      = "path"
	KindNamespace = "namespace"
	KindKeyword   = "keyword"
	KindField     = "field"
	KindCommand   = "command" // a program on PATH
	KindFlag      = "flag"
)

// Candidate is one completion: the text to insert, what it is, a short
// detail for display, and the byte span of the source it replaces.
type Candidate struct {
	Label   string      `json:"label"`
	Kind    string      `json:"kind"`
	Detail  string      `json:"detail,omitempty"`
	Replace syntax.Span `json:"replace"`
}

// MaxCandidates bounds the candidates one call returns.
const MaxCandidates = 200

// Context is what completion may know about the session. Every func field
// may be nil: a nil name source offers nothing, nil method and namespace
// sources fall back to the value and namespaces registries, and a nil
// ReadDir offers no paths.
type Context struct {
	// Names lists the value-bound session names.
	Names func() []string
	// Builtins lists the builtin commands.
	Builtins func() []string
	// Commands lists the session's functions and aliases.
	Commands func() []string
	// PathCommands lists the programs on PATH, offered at a statement's
	// head after everything the session defines. The caller lists them
	// (see PathCommandNames); completion never touches the OS.
	PathCommands func() []string
	// Flags lists the flags a builtin command declares, as typed
	// (`--long`, `-s`), offered for a command argument starting with `-`.
	Flags func(head string) []string
	// Subcommands lists the subcommands a command adapter declares for
	// head (`git`: status, stash, …), offered for a command's first
	// argument.
	Subcommands func(head string) []string
	// Methods lists the methods of a kind (default value.MethodNames);
	// AllMethods lists every method name (default: the union over kinds).
	Methods    func(k value.Kind) []string
	AllMethods func() []string
	// KindOf reports the kind of a bound session value.
	KindOf func(name string) (value.Kind, bool)
	// Fields lists the field names of a bound record value.
	Fields func(name string) []string
	// Namespaces lists the namespace names (default namespaces.Names);
	// Members lists a namespace's members (default from namespaces.Lookup).
	Namespaces func() []string
	Members    func(ns string) []string
	// EnvNames lists environment variable names, offered after `env.`.
	EnvNames func() []string
	// Dir is the absolute working directory; Home is `~`.
	Dir  string
	Home string
	// ReadDir lists a directory (through the host gate).
	ReadDir func(dir string) ([]fs.DirEntry, error)
	// Match narrows which candidates the typed text admits; nil admits
	// every tier (exact prefix, case-folded prefix, subsequence), as the
	// kernel's complete method offers them.
	Match *Match
}

// Match is what a person's completion settings admit (completion.* in
// shoal.toml). A candidate that starts with the typed text, case and
// all, is always admitted.
type Match struct {
	// CaseInsensitive admits a candidate that starts with the typed text
	// when case is ignored.
	CaseInsensitive bool
	// Fuzzy admits a candidate that holds the typed characters in order
	// (case ignored too when CaseInsensitive).
	Fuzzy bool
	// MaxResults bounds the candidates (0: MaxCandidates; never more).
	MaxResults int
}

func call(f func() []string) []string {
	if f == nil {
		return nil
	}
	return f()
}

func (c *Context) methods(k value.Kind) []string {
	if c.Methods != nil {
		return c.Methods(k)
	}
	return value.MethodNames(k)
}

func (c *Context) allMethods() []string {
	if c.AllMethods != nil {
		return c.AllMethods()
	}
	seen := map[string]bool{}
	var out []string
	for k := value.KNull; k <= value.KNamespace; k++ {
		for _, m := range value.MethodNames(k) {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return out
}

func (c *Context) namespaces() []string {
	if c.Namespaces != nil {
		return c.Namespaces()
	}
	return namespaces.Names()
}

// members lists a namespace's members with their candidate kinds.
func (c *Context) members(ns string) (names []string, kinds map[string]string) {
	if c.Members != nil {
		return c.Members(ns), nil
	}
	v, ok := namespaces.Lookup(ns)
	if !ok {
		return nil, nil
	}
	n, ok := v.(*value.Namespace)
	if !ok {
		return nil, nil
	}
	kinds = make(map[string]string, len(n.Members))
	for name, m := range n.Members {
		names = append(names, name)
		if _, fn := m.(*value.Builtin); fn {
			kinds[name] = KindFunction
		} else {
			kinds[name] = KindField
		}
	}
	sort.Strings(names)
	return names, kinds
}

func (c *Context) isNamespace(name string) bool {
	for _, n := range c.namespaces() {
		if n == name {
			return true
		}
	}
	return false
}

func (c *Context) isBound(name string) bool {
	for _, n := range call(c.Names) {
		if n == name {
			return true
		}
	}
	return false
}

// keywords are the reserved words offered at a statement head.
var keywords = []string{
	"alias", "break", "catch", "continue", "else", "export", "false", "fn", "for", "if", "in",
	"let", "match", "null", "return", "spawn", "true", "try", "use", "var", "while", "with",
}

func isKeyword(s string) bool {
	i := sort.SearchStrings(keywords, s)
	return i < len(keywords) && keywords[i] == s
}

// EnvNames returns the variable names of env (KEY=VALUE entries), sorted
// and without repeats, for Context.EnvNames.
func EnvNames(env []string) []string {
	names := make([]string, 0, len(env))
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && k != "" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
