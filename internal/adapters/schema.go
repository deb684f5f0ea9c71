package adapters

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
	"github.com/shoalgo/shoal/internal/value"
)

// Command classes.
const (
	ClassCLI         = "cli"
	ClassTUI         = "tui"
	ClassDaemon      = "daemon"
	ClassInterpreter = "interpreter"
)

// Command is one adapted command head.
type Command struct {
	Name    string // the Shoal-side head
	Bin     string // the executable; defaults to Name
	Class   string // ClassCLI, ClassTUI, ClassDaemon or ClassInterpreter
	OkCodes []int  // accepted exit statuses; defaults to [0]
	// Payload is how an interpreter block's body reaches the program:
	// "arg" (one argv word after the invoke template) or "stdin".
	Payload string
	// BlockInvoke is an interpreter's argv template for its block form,
	// before the body (nil for other classes).
	BlockInvoke []string
	Top         *Spec            // the specification of a call with no declared subcommand
	Subs        map[string]*Spec // subcommand specifications by their Shoal-side name
	Source      string           // the file that defined it, for diagnostics
}

// Spec is the declaration of one call shape: a command's top level or
// one of its subcommands.
type Spec struct {
	Params     map[string]value.TypeSpec // parameter name → type
	ParamText  map[string]string         // parameter name → type as written
	Positional []string                  // parameter names bound by position, in order
	Short      map[byte]string           // short letter → parameter name
	Invoke     []string                  // fixed argv after the binary; nil: the subcommand name
	HasInvoke  bool
	Consumed   map[string]bool // declared flags recognised but not forwarded
	Parse      string          // output parser strategy ("none" when absent)
	OutType    string          // output type hint as written
	Effects    []Template      // planning effects
	OkCodes    []int           // nil: the command's
	// Open is set on a specification that declares no parameters and
	// pins no format: it makes no claim about the program's flags, so
	// they are forwarded as written (`git rebase -i HEAD~2`).
	Open bool
}

// isParser reports a parser strategy. This and isParamType are switches,
// not map literals, which a package initialiser would build at every start.
func isParser(s string) bool {
	switch s {
	case "json", "ndjson", "csv", "tsv", "z-records", "porcelain-v2", "cols", "cols2", "tsv-headerless",
		"lines", "kv", "none":
		return true
	}
	return false
}

// isParamType reports a scalar parameter type name.
func isParamType(s string) bool {
	switch s {
	case "str", "bool", "int", "float", "path", "glob", "size", "size_kb", "duration", "time":
		return true
	}
	return false
}

// maxTypeDepth bounds list<…> nesting in a parameter type.
const maxTypeDepth = 8

// LoadError is a problem with one adapter file or command: where it is
// and what is wrong. Loading continues past it; the catalog keeps every
// valid sibling.
type LoadError struct {
	File string
	Line int // 0 when not known
	Col  int
	Msg  string
}

// Error renders "git.toml:3:10: message".
func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// The file's TOML shape, decoded strictly: an unknown field is an error
// with its line and column.
type fileTOML struct {
	Cmd map[string]cmdTOML `toml:"cmd"`
}

type specFields struct {
	Params     map[string]string `toml:"params"`
	Positional []string          `toml:"positional"`
	Flags      *flagsTOML        `toml:"flags"`
	Invoke     *[]string         `toml:"invoke"`
	Consumed   []string          `toml:"consumed"`
	Output     *outputTOML       `toml:"output"`
	Effects    []string          `toml:"effects"`
	OkCodes    *[]int            `toml:"ok_codes"`
}

type cmdTOML struct {
	Bin           string             `toml:"bin"`
	Class         string             `toml:"class"`
	InvokePayload string             `toml:"invoke_payload"`
	Sub           map[string]subTOML `toml:"sub"`
	Params        map[string]string  `toml:"params"`
	Positional    []string           `toml:"positional"`
	Flags         *flagsTOML         `toml:"flags"`
	Invoke        *[]string          `toml:"invoke"`
	Consumed      []string           `toml:"consumed"`
	Output        *outputTOML        `toml:"output"`
	Effects       []string           `toml:"effects"`
	OkCodes       *[]int             `toml:"ok_codes"`
}

type subTOML = specFields

type flagsTOML struct {
	Short map[string]string `toml:"short"`
}

type outputTOML struct {
	Parse string `toml:"parse"`
	Type  string `toml:"type"`
}

// Catalog is a set of adapted commands by head. A catalog is not changed
// once built, so sessions share one.
type Catalog struct {
	once     sync.Once
	build    func() *Catalog // Lazy: builds the catalog on first use
	cmds     map[string]*Command
	warnings []*LoadError
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog { return &Catalog{cmds: map[string]*Command{}} }

// Lazy returns a catalog that is build's result, built on first use, so
// a program that never runs an adapted command never decodes one (the
// CLI's cold start).
func Lazy(build func() *Catalog) *Catalog { return &Catalog{build: build} }

// ready builds a Lazy catalog once.
func (c *Catalog) ready() *Catalog {
	c.once.Do(func() {
		if c.build == nil {
			return
		}
		b := c.build()
		if b == nil {
			b = NewCatalog()
		} else {
			b = b.ready()
		}
		c.cmds, c.warnings = b.cmds, b.warnings
	})
	return c
}

// UserDir is where a user's own adapter files live:
// $XDG_CONFIG_HOME/shoal/adapters, else ~/.config/shoal/adapters; "" when
// neither variable is set.
func UserDir(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" && strings.HasPrefix(x, "/") {
		return path.Join(x, "shoal", "adapters")
	}
	if h := getenv("HOME"); h != "" {
		return path.Join(h, ".config", "shoal", "adapters")
	}
	return ""
}

// WithUser is the bundled catalog layered with the user's directory
// (UserDir), as the shoal command and the kernel both load it, and the
// problems that directory's files had, each File named by its full path
// (their valid siblings still load). dirFS opens a directory (os.DirFS);
// this package touches no OS itself.
func WithUser(getenv func(string) string, dirFS func(dir string) fs.FS) (*Catalog, []*LoadError) {
	base := Bundled()
	dir := UserDir(getenv)
	if dir == "" {
		return base, nil
	}
	c := base.Layer(dirFS(dir), ".")
	var problems []*LoadError
	for _, w := range c.Warnings()[len(base.Warnings()):] {
		e := *w
		e.File = path.Join(dir, e.File)
		problems = append(problems, &e)
	}
	return c, problems
}

// Lookup returns the command adapted under head.
func (c *Catalog) Lookup(head string) (*Command, bool) {
	if c == nil {
		return nil, false
	}
	cmd, ok := c.ready().cmds[head]
	return cmd, ok
}

// Names lists the adapted heads, sorted.
func (c *Catalog) Names() []string {
	if c == nil {
		return nil
	}
	c.ready()
	out := make([]string, 0, len(c.cmds))
	for n := range c.cmds {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Subcommands lists the subcommands declared for head, sorted; nil when
// head is not adapted.
func (c *Catalog) Subcommands(head string) []string {
	cmd, ok := c.Lookup(head)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(cmd.Subs))
	for n := range cmd.Subs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Len is the number of adapted heads.
func (c *Catalog) Len() int {
	if c == nil {
		return 0
	}
	return len(c.ready().cmds)
}

// Warnings are the problems met while loading, in load order.
func (c *Catalog) Warnings() []*LoadError {
	if c == nil {
		return nil
	}
	return c.ready().warnings
}

// Layer returns a new catalog: c's commands, then every .toml file of
// dir in fsys in sorted order, a later definition of a head replacing an
// earlier one (with a warning naming both files). Unlike a catalog that
// replaces the whole set per directory, layering keeps every head a
// later directory does not redefine. A missing directory adds nothing.
func (c *Catalog) Layer(fsys fs.FS, dir string) *Catalog {
	out := &Catalog{cmds: make(map[string]*Command, c.Len())}
	if c != nil {
		c.ready()
		for k, v := range c.cmds {
			out.cmds[k] = v
		}
		out.warnings = append(out.warnings, c.warnings...)
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			out.warnings = append(out.warnings, &LoadError{File: dir, Msg: err.Error()})
		}
		return out
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".toml") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) > MaxFiles {
		out.warnings = append(out.warnings, &LoadError{File: dir, Msg: fmt.Sprintf("%d adapter files; only the first %d are read", len(names), MaxFiles)})
		names = names[:MaxFiles]
	}
	for _, n := range names {
		p := path.Join(dir, n)
		data, err := readBounded(fsys, p)
		if err != nil {
			out.warnings = append(out.warnings, &LoadError{File: p, Msg: err.Error()})
			continue
		}
		cmds, errs := ParseFile(p, data)
		out.warnings = append(out.warnings, errs...)
		for _, cmd := range cmds {
			if prev, ok := out.cmds[cmd.Name]; ok {
				out.warnings = append(out.warnings, &LoadError{File: p, Msg: fmt.Sprintf("command %q replaces the definition in %s", cmd.Name, prev.Source)})
			} else if len(out.cmds) >= MaxCommands {
				out.warnings = append(out.warnings, &LoadError{File: p, Msg: fmt.Sprintf("more than %d adapted commands; %q is dropped", MaxCommands, cmd.Name)})
				continue
			}
			out.cmds[cmd.Name] = cmd
		}
	}
	return out
}

func readBounded(fsys fs.FS, p string) ([]byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxFileBytes)
	}
	return data, nil
}

// ParseFile decodes one adapter file. A file that is not valid TOML or
// has a field the schema does not know yields one error with its line
// and column and no commands; a command whose declaration is inconsistent
// yields an error naming it, and its valid siblings are returned.
func ParseFile(name string, data []byte) ([]*Command, []*LoadError) {
	if len(data) > MaxFileBytes {
		return nil, []*LoadError{{File: name, Msg: fmt.Sprintf("larger than %d bytes", MaxFileBytes)}}
	}
	var doc fileTOML
	dec := toml.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, []*LoadError{decodeError(name, err)}
	}
	heads := make([]string, 0, len(doc.Cmd))
	for h := range doc.Cmd {
		heads = append(heads, h)
	}
	sort.Strings(heads)
	var cmds []*Command
	var errs []*LoadError
	for _, h := range heads {
		cmd, err := buildCommand(h, doc.Cmd[h])
		if err != nil {
			line := headerLine(data, "[cmd."+h)
			errs = append(errs, &LoadError{File: name, Line: line, Col: boolInt(line > 0), Msg: fmt.Sprintf("command %q: %v", h, err)})
			continue
		}
		cmd.Source = name
		cmds = append(cmds, cmd)
	}
	return cmds, errs
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// headerLine finds the first line starting with prefix (a table header),
// so a semantic error points at the command it is about; 0 when absent.
func headerLine(data []byte, prefix string) int {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return i + 1
		}
	}
	return 0
}

func decodeError(name string, err error) *LoadError {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		de := sm.Errors[0]
		line, col := de.Position()
		return &LoadError{File: name, Line: line, Col: col, Msg: fmt.Sprintf("unknown field %q", strings.Join(de.Key(), "."))}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		return &LoadError{File: name, Line: line, Col: col, Msg: strings.TrimPrefix(de.Error(), "toml: ")}
	}
	return &LoadError{File: name, Msg: err.Error()}
}

func buildCommand(head string, t cmdTOML) (*Command, error) {
	if head == "" || strings.ContainsAny(head, " \t/") {
		return nil, fmt.Errorf("a command head is one word")
	}
	cmd := &Command{Name: head, Bin: t.Bin, Class: t.Class, Payload: t.InvokePayload, OkCodes: []int{0}}
	if cmd.Bin == "" {
		cmd.Bin = head
	}
	switch cmd.Class {
	case "":
		cmd.Class = ClassCLI
	case ClassCLI, ClassTUI, ClassDaemon, ClassInterpreter:
	default:
		return nil, fmt.Errorf("unknown class %q (cli, tui, daemon or interpreter)", cmd.Class)
	}
	switch cmd.Payload {
	case "":
		if cmd.Class == ClassInterpreter {
			cmd.Payload = "arg"
		}
	case "arg", "stdin":
		if cmd.Class != ClassInterpreter {
			return nil, fmt.Errorf("invoke_payload is only for interpreter-class commands")
		}
	default:
		return nil, fmt.Errorf("unknown invoke_payload %q (arg or stdin)", cmd.Payload)
	}
	if t.OkCodes != nil {
		cmd.OkCodes = *t.OkCodes
	}
	top, err := buildSpec(specFields{Params: t.Params, Positional: t.Positional, Flags: t.Flags, Invoke: t.Invoke,
		Consumed: t.Consumed, Output: t.Output, Effects: t.Effects})
	if err != nil {
		return nil, err
	}
	if cmd.Class == ClassInterpreter {
		// An interpreter's invoke is the template of its block form
		// (`python { … }`: python3 -c BODY); the command form
		// (`python script.py`) passes its words as written.
		cmd.BlockInvoke = top.Invoke
		if cmd.BlockInvoke == nil {
			cmd.BlockInvoke = []string{}
		}
		top.Invoke, top.HasInvoke = nil, false
		top.Open = len(top.Params) == 0
	} else {
		// A top level that declares nothing and pins no format makes no
		// claim about the program's flags.
		top.Open = len(top.Params) == 0 && !top.HasInvoke && top.Parse == "none"
	}
	cmd.Top = top
	if len(t.Sub) > MaxSubs {
		return nil, fmt.Errorf("%d subcommands, more than %d", len(t.Sub), MaxSubs)
	}
	cmd.Subs = make(map[string]*Spec, len(t.Sub))
	for name, st := range t.Sub {
		if name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("subcommand %q: a subcommand is one word", name)
		}
		s, err := buildSpec(st)
		if err != nil {
			return nil, fmt.Errorf("subcommand %q: %v", name, err)
		}
		// A subcommand that declares nothing and pins no format makes
		// no claim about its flags either (`git rebase -i HEAD~2`).
		s.Open = len(s.Params) == 0 && !s.HasInvoke && s.Parse == "none"
		if s.Invoke == nil && !s.HasInvoke {
			s.Invoke = []string{name}
		}
		cmd.Subs[name] = s
	}
	return cmd, nil
}

func buildSpec(t specFields) (*Spec, error) {
	s := &Spec{Params: map[string]value.TypeSpec{}, ParamText: map[string]string{}, Short: map[byte]string{}, Consumed: map[string]bool{}, Parse: "none"}
	for _, n := range [...]int{len(t.Params), len(t.Positional), len(t.Consumed), len(t.Effects)} {
		if n > MaxParams {
			return nil, fmt.Errorf("more than %d entries in a list or table", MaxParams)
		}
	}
	for name, typ := range t.Params {
		if name == "" || strings.ContainsAny(name, " \t=") || strings.HasPrefix(name, "-") {
			return nil, fmt.Errorf("parameter %q: not a flag name", name)
		}
		spec, err := ParamType(typ)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %v", name, err)
		}
		s.Params[name], s.ParamText[name] = spec, typ
	}
	for _, p := range t.Positional {
		if _, ok := s.Params[p]; !ok {
			return nil, fmt.Errorf("positional %q is not a declared parameter", p)
		}
	}
	s.Positional = append([]string(nil), t.Positional...)
	if t.Flags != nil {
		if len(t.Flags.Short) > MaxParams {
			return nil, fmt.Errorf("more than %d short flags", MaxParams)
		}
		for letter, target := range t.Flags.Short {
			if len(letter) != 1 || !isFlagLetter(letter[0]) {
				return nil, fmt.Errorf("short flag %q is not one letter or digit", letter)
			}
			if _, ok := s.Params[target]; !ok {
				return nil, fmt.Errorf("short flag %q names %q, not a declared parameter", letter, target)
			}
			s.Short[letter[0]] = target
		}
	}
	if t.Invoke != nil {
		if len(*t.Invoke) > MaxParams {
			return nil, fmt.Errorf("invoke has more than %d words", MaxParams)
		}
		s.Invoke, s.HasInvoke = append([]string{}, (*t.Invoke)...), true
	}
	for _, c := range t.Consumed {
		if _, ok := s.Params[c]; !ok {
			return nil, fmt.Errorf("consumed %q is not a declared parameter", c)
		}
		s.Consumed[c] = true
	}
	if t.Output != nil {
		if t.Output.Parse != "" {
			if !isParser(t.Output.Parse) {
				return nil, fmt.Errorf("unknown output parser %q", t.Output.Parse)
			}
			s.Parse = t.Output.Parse
		}
		if len(t.Output.Type) > MaxTypeBytes {
			return nil, fmt.Errorf("output type longer than %d bytes", MaxTypeBytes)
		}
		s.OutType = t.Output.Type
		if needsFields(s.Parse) {
			if _, err := HintFields(s.OutType); err != nil {
				return nil, fmt.Errorf("output type: %v", err)
			}
		}
	}
	for _, e := range t.Effects {
		tpl, err := ParseTemplate(e)
		if err != nil {
			return nil, err
		}
		if tpl.Param != "" {
			if _, ok := s.Params[tpl.Param]; !ok {
				return nil, fmt.Errorf("effect %q names $%s, not a declared parameter", e, tpl.Param)
			}
		}
		if tpl.If != "" {
			if typ, ok := s.Params[tpl.If]; !ok || typ.Name != "bool" {
				return nil, fmt.Errorf("effect %q depends on %q, not a declared bool parameter", e, tpl.If)
			}
		}
		s.Effects = append(s.Effects, tpl)
	}
	if t.OkCodes != nil {
		s.OkCodes = *t.OkCodes
	}
	return s, nil
}

func isFlagLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// ParamType parses a parameter type: a scalar type name, `list<T>`, and
// `?` for optional. An unknown name is an error.
func ParamType(text string) (value.TypeSpec, error) {
	if len(text) > MaxTypeBytes {
		return value.TypeSpec{}, fmt.Errorf("type longer than %d bytes", MaxTypeBytes)
	}
	if strings.Count(text, "<") > maxTypeDepth {
		return value.TypeSpec{}, fmt.Errorf("type %q nests more than %d deep", text, maxTypeDepth)
	}
	spec := value.ParseTypeSpec(text)
	for t := &spec; ; {
		switch {
		case t.Name == "list" && len(t.Args) == 1:
			t = &t.Args[0]
			continue
		case isParamType(t.Name) && len(t.Args) == 0:
			return spec, nil
		}
		return value.TypeSpec{}, fmt.Errorf("unknown parameter type %q", text)
	}
}
