package eval

// The help builtin: `help` (topics, builtins, functions, methods), `help
// NAME`, and `NAME --help` for every builtin. The text of a builtin or a
// function is its registry entry's Help; a method's is the method
// registry's (value.MethodHelp); the topics are below, in one place.

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

func registerHelp(p *Part) {
	p.Builtin(&Builtin{Name: "help", Run: runHelp, Bare: true, Effects: EffNone,
		Help: Help{
			Summary: "show help: topics, builtins, functions and methods, or one of them",
			Usage:   "help [NAME | TOPIC | TYPE]",
			Example: "help\nhelp ls\nhelp sort_by\nhelp list",
		}})
}

// runHelp answers `help` and `help NAME`.
func runHelp(c *BuiltinCall) (value.Value, error) {
	if len(c.Args) > 1 {
		return nil, errorf(codeArg, "help takes at most one name, got %d", len(c.Args))
	}
	if len(c.Args) == 0 {
		return value.Str(c.t.reg().helpIndex()), nil
	}
	name, ok := helpName(c.Args[0])
	if !ok {
		return nil, errorf(codeArg, "help: expected a name, got %s", value.TypeName(c.Args[0])).
			WithHint("help ls, help sort_by, help list")
	}
	if text, ok := c.t.reg().helpFor(name); ok {
		return value.Str(text), nil
	}
	e := errorf(codeNotFound, "no help for `%s`", name)
	if s := suggest(name, c.t.reg().helpNames()); s != "" {
		e.Hint = "did you mean '" + s + "'?"
	} else {
		e.Hint = "help lists the topics, builtins, functions and methods"
	}
	return nil, e
}

// helpName reads the argument of help: a word, a string, or a method
// written with its dot or parentheses (.sort_by, sort_by()).
func helpName(v value.Value) (string, bool) {
	var s string
	switch x := v.(type) {
	case value.Str:
		s = string(x)
	case value.Path:
		s = string(x)
	default:
		return "", false
	}
	s = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "."), "()")
	return s, s != ""
}

// helpFor renders the help of name: a topic, a builtin, a function, a
// method, a type (its methods), a namespace or a namespace's member
// (`os.hostname`).
func (r *Registry) helpFor(name string) (string, bool) {
	for _, tp := range helpTopics {
		if tp.name == name {
			return tp.render() + "\n", true
		}
	}
	if name == "methods" {
		return r.methodsIndex(), true
	}
	var parts []string
	if b, ok := r.builtins[name]; ok {
		parts = append(parts, builtinHelp(b))
	}
	if f, ok := r.funcs[name]; ok {
		parts = append(parts, funcHelp(f))
	}
	if doc, ok := value.MethodHelp(name); ok {
		parts = append(parts, methodHelp(name, doc))
	}
	if text, ok := r.methodEntryHelp(name); ok {
		parts = append(parts, text)
	}
	if k, ok := value.KindNamed(name); ok {
		parts = append(parts, r.kindHelp(k))
	}
	if text, ok := r.namespaceHelp(name); ok {
		parts = append(parts, text)
	}
	if text, ok := errorCodeHelp(name); ok {
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, "\n"), true
}

// helpNames lists every name help answers, for its did-you-mean.
func (r *Registry) helpNames() []string {
	var out []string
	for _, tp := range helpTopics {
		out = append(out, tp.name)
	}
	out = append(out, "methods")
	for _, c := range value.Codes() {
		out = append(out, c.Name)
	}
	out = append(out, r.names()...)
	out = append(out, value.AllMethodNames()...)
	for _, set := range r.methods {
		for n, m := range set {
			if m.Help.Summary != "" {
				out = append(out, n)
			}
		}
	}
	for _, ns := range r.namespaces {
		if ns.Help.Summary != "" {
			out = append(out, ns.Name)
		}
		for _, m := range ns.Members {
			out = append(out, ns.Name+"."+m.Name)
		}
	}
	return out
}

// helpIndex is `help` with no name.
func (r *Registry) helpIndex() string {
	var b strings.Builder
	b.WriteString("Shoal help: `help NAME` for a builtin, function, method, type or topic; `NAME --help` for a builtin.\n\n")
	b.WriteString("Topics:\n")
	for _, tp := range helpTopics {
		fmt.Fprintf(&b, "  %-10s %s\n", tp.name, tp.summary)
	}
	// Names only, packed in lines, so the whole index fits a terminal:
	// `help NAME` gives each one's summary, usage and example.
	b.WriteString("\nBuiltin commands (`help NAME` describes one):\n")
	writeNameGrid(&b, r.BuiltinNames())
	b.WriteString("\nFunctions (called with parentheses):\n")
	var funcs []string
	for _, n := range r.FuncNames() {
		funcs = append(funcs, n+"()")
	}
	writeNameGrid(&b, funcs)
	b.WriteString("\nMethods: `help methods` lists them all; `help str`, `help list`, ... the methods of one type.\n")
	return b.String()
}

// helpIndexWidth is the width the index's name lists are packed into.
const helpIndexWidth = 78

// writeNameGrid writes names in aligned columns, as many to a line as fit
// helpIndexWidth.
func writeNameGrid(b *strings.Builder, names []string) {
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	cols := max(1, (helpIndexWidth-2)/(width+2))
	for i, n := range names {
		if i%cols == 0 {
			b.WriteString("  ")
		}
		if i%cols == cols-1 || i == len(names)-1 {
			b.WriteString(n + "\n")
		} else {
			fmt.Fprintf(b, "%-*s", width+2, n)
		}
	}
}

// builtinHelp renders one builtin's Help and its declared flags.
func builtinHelp(b *Builtin) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s — %s\n\nusage: %s\n", b.Name, b.Help.Summary, b.Help.Usage)
	if len(b.Flags) > 0 {
		s.WriteString("flags:\n")
		for _, f := range b.Flags {
			s.WriteString("  " + flagSynopsis(f) + "\n")
		}
	}
	writeExample(&s, b.Help.Example)
	return s.String()
}

// flagSynopsis is "-p, --parents" or "--limit VALUE" (the value is the
// next word or follows an =).
func flagSynopsis(f leash.FlagSpec) string {
	var parts []string
	for _, r := range f.Short {
		parts = append(parts, "-"+string(r))
	}
	long := "--" + f.Long
	if f.Value {
		long += " VALUE"
	}
	parts = append(parts, long)
	return strings.Join(parts, ", ")
}

func funcHelp(f *Func) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s() — %s\n\nusage: %s\n", f.Name, f.Help.Summary, f.Help.Usage)
	writeExample(&s, f.Help.Example)
	return s.String()
}

func methodHelp(name string, doc value.MethodDoc) string {
	var s strings.Builder
	fmt.Fprintf(&s, ".%s — %s\n\nusage: %s\nworks on: %s\n", name, doc.Summary, doc.Usage, strings.Join(value.MethodOwners(name), ", "))
	writeExample(&s, doc.Example)
	return s.String()
}

func writeExample(s *strings.Builder, ex string) {
	if ex == "" {
		return
	}
	s.WriteString("example:\n")
	for _, line := range strings.Split(ex, "\n") {
		s.WriteString("  " + line + "\n")
	}
}

// kindHelp lists the methods of one type.
func (r *Registry) kindHelp(k value.Kind) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s methods:\n", k)
	names := r.MethodNames(k)
	width := 0
	for _, n := range names {
		width = max(width, len(n)+1)
	}
	for _, n := range names {
		fmt.Fprintf(&s, "  %-*s %s\n", width, "."+n, r.methodSummary(k, n))
	}
	return s.String()
}

// methodSummary is the one line a method list shows for kind k's method
// name: the registry entry's, else the value package's.
func (r *Registry) methodSummary(k value.Kind, name string) string {
	for _, set := range []map[string]*Method{r.methods[k], r.methods[anyKind]} {
		if m, ok := set[name]; ok && m.Help.Summary != "" {
			return m.Help.Summary
		}
	}
	doc, _ := value.MethodHelp(name)
	return doc.Summary
}

// methodsIndex lists every method with the types it works on.
func (r *Registry) methodsIndex() string {
	names := value.AllMethodNames()
	for _, set := range r.methods {
		for n := range set {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	names = slices.Compact(names)
	var s strings.Builder
	s.WriteString("Methods (`help NAME` for one; `help TYPE` for a type's):\n")
	width := 0
	for _, n := range names {
		width = max(width, len(n)+1)
	}
	for _, n := range names {
		summary := ""
		if doc, ok := value.MethodHelp(n); ok {
			summary = doc.Summary
		} else if m, ok := r.methodEntry(n); ok {
			summary = m.Help.Summary
		}
		fmt.Fprintf(&s, "  %-*s %s\n", width, "."+n, summary)
	}
	return s.String()
}

// helpRequested reports `NAME --help` alone: the one argument --help, for
// a builtin that does not declare a help flag of its own. Programs run by
// run, interact and kill see their flags as words, so the word counts.
func helpRequested(b *Builtin, c *BuiltinCall) bool {
	if b.Quoted || b.Name == "help" {
		return false
	}
	for _, f := range b.Flags {
		if f.Long == "help" {
			return false
		}
	}
	if b.Verbatim {
		if len(c.Args) != 1 || len(c.Flags) != 0 {
			return false
		}
		s, ok := c.Args[0].(value.Str)
		return ok && s == "--help"
	}
	return len(c.Args) == 0 && len(c.Flags) == 1 && c.Flags[0].Name == "help" && !c.Flags[0].Short && c.Flags[0].Value == nil
}

// methodEntry is a registry method called name with help (of any kind).
func (r *Registry) methodEntry(name string) (*Method, bool) {
	for _, k := range r.methodKinds(name) {
		if m := r.methods[k][name]; m.Help.Summary != "" {
			return m, true
		}
	}
	return nil, false
}

// methodKinds lists the kinds with a registry method called name, in kind
// order (anyKind last).
func (r *Registry) methodKinds(name string) []value.Kind {
	var ks []value.Kind
	for k, set := range r.methods {
		if _, ok := set[name]; ok {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// methodEntryHelp renders the registry's methods called name, one
// paragraph per distinct help, with the kinds each works on. A method the
// value package documents (an annotation without code of its own) is left
// to methodHelp.
func (r *Registry) methodEntryHelp(name string) (string, bool) {
	if _, ok := value.MethodHelp(name); ok {
		documented := true
		for _, k := range r.methodKinds(name) {
			documented = documented && r.methods[k][name].Call == nil
		}
		if documented {
			return "", false
		}
	}
	var paras []string
	var kinds [][]string
	var helps []Help
	for _, k := range r.methodKinds(name) {
		m := r.methods[k][name]
		if m.Call == nil || m.Help.Summary == "" {
			continue
		}
		kn := "every type"
		if k != anyKind {
			kn = k.String()
		}
		i := slices.Index(helps, m.Help)
		if i < 0 {
			helps = append(helps, m.Help)
			kinds = append(kinds, nil)
			i = len(helps) - 1
		}
		kinds[i] = append(kinds[i], kn)
	}
	for i, h := range helps {
		var s strings.Builder
		fmt.Fprintf(&s, ".%s — %s\n\nusage: %s\nworks on: %s\n", name, h.Summary, h.Usage, strings.Join(kinds[i], ", "))
		writeExample(&s, h.Example)
		paras = append(paras, s.String())
	}
	if len(paras) == 0 {
		return "", false
	}
	return strings.Join(paras, "\n"), true
}

// namespaceHelp renders a namespace with help (its members listed) or one
// member of it, `ns.member`.
func (r *Registry) namespaceHelp(name string) (string, bool) {
	if ns, ok := r.namespaces[name]; ok && ns.Help.Summary != "" {
		var s strings.Builder
		fmt.Fprintf(&s, "%s — %s\n\nusage: %s\n", ns.Name, ns.Help.Summary, ns.Help.Usage)
		if len(ns.Members) > 0 {
			s.WriteString("members:\n")
			width := 0
			for _, m := range ns.Members {
				width = max(width, len(m.Name))
			}
			for _, m := range ns.Members {
				fmt.Fprintf(&s, "  %-*s %s\n", width, m.Name, m.Help.Summary)
			}
		}
		writeExample(&s, ns.Help.Example)
		return s.String(), true
	}
	nsName, member, ok := strings.Cut(name, ".")
	if !ok {
		return "", false
	}
	ns, ok := r.namespaces[nsName]
	if !ok {
		return "", false
	}
	for _, m := range ns.Members {
		if m.Name == member {
			var s strings.Builder
			fmt.Fprintf(&s, "%s.%s — %s\n\nusage: %s\n", ns.Name, m.Name, m.Help.Summary, m.Help.Usage)
			writeExample(&s, m.Help.Example)
			return s.String(), true
		}
	}
	return "", false
}
