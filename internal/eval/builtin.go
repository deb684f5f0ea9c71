package eval

import (
	"context"
	"io"
	"strings"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Builtin is a command implemented in Go: one entry of the Registry,
// added to a Part (Part.Builtin).
type Builtin struct {
	Name string
	// Run executes the builtin. Unless Bare is set, its result becomes the
	// Out of a successful outcome.
	Run func(c *BuiltinCall) (value.Value, error)
	// Bare returns the result as-is instead of wrapping it in an outcome
	// (pwd, cd, dirs, source, ...).
	Bare bool
	// Session marks builtins that change session state (cd, pushd, popd):
	// they are rejected inside function bodies with SessionHint.
	Session     bool
	SessionHint string
	// Quiet suppresses printing the result in statement position.
	Quiet bool
	// Hidden: a statement that ends with the builtin shows nothing, in
	// the REPL, -c and scripts, through either door; its result is still
	// the statement's value (an agent sees it, `let p = (cd src)` keeps
	// it). cd: the next prompt shows where you are; save: what it wrote
	// went to the file, as a redirect's does. See HidesResult.
	Hidden bool
	// Verbatim passes every argument as a positional value, flags spelled
	// as written (`-v`, `--x=1`, `--`), for builtins that run another
	// program's command line (interact).
	Verbatim bool
	// Effects declares what the builtin does, for plan derivation
	// (leash.Derive reads it through the Registry). Every builtin has one,
	// EffNone when it touches nothing; a test fails when one is missing.
	Effects func(d *leash.Deriver)
	// Flags are the flags the builtin accepts. Any other flag is an
	// arg_error naming the flag and the builtin (unless Verbatim or
	// TextFlags); plans read flags through the same declaration.
	Flags []leash.FlagSpec
	// TextFlags: flags are text the builtin prints (echo), not options.
	TextFlags bool
	// Quoted: the arguments and trailing block are syntax the builtin
	// describes without evaluating (plan); Run finds them in Syntax.
	Quoted bool
	// Help is what `help NAME` and `NAME --help` show; every builtin has
	// one (a test fails when Summary, Usage or Example is missing).
	Help Help
}

// Help documents a registered name for people, in its registry entry:
// `help NAME` and `NAME --help` render it, with the flags listed from the
// entry's Flags declaration so they cannot disagree.
type Help struct {
	// Summary is one line: what it does.
	Summary string
	// Usage is the synopsis, e.g. "ls [PATH...]" (flags are listed from
	// Flags, not repeated here).
	Usage string
	// Example is one or more lines of Shoal that use it; a test parses
	// each.
	Example string
}

// Flag is one flag given to a builtin: `--name`, `--name=value`, or one
// letter of a short-flag cluster (`-rf` gives r and f).
type Flag struct {
	Name  string
	Value value.Value // nil when the flag has no value
	Short bool
}

// Context is what builtins and host methods may ask of the evaluation
// they run in. All effects go through Host.
type Context struct{ t *thread }

// Ctx is cancelled when the evaluation is cancelled.
func (c Context) Ctx() context.Context { return c.t.ctx }

// Host is the gate to the operating system.
func (c Context) Host() host.Host { return c.t.host }

// Dir is the current working directory (absolute).
func (c Context) Dir() string { return c.t.dir }

// Abs resolves a path against the working directory, expanding `~`.
func (c Context) Abs(p string) string { return c.t.abs(p) }

// Environ is the current environment (KEY=VALUE); do not modify it.
func (c Context) Environ() []string { return c.t.env }

// Getenv reads one environment variable.
func (c Context) Getenv(name string) (string, bool) { return c.t.getenv(name) }

// Stdout is where statement-position output goes.
func (c Context) Stdout() io.Writer { return c.t.stdout }

// Env lets the builtin call closures and value methods.
func (c Context) Env() value.Env { return c.t }

// InFunction reports whether the call happens inside a function body.
func (c Context) InFunction() bool { return c.t.fnDepth > 0 }

// Chdir changes the working directory to the absolute directory dir,
// recording the previous one for `cd -`. At session top level the change
// persists; inside `with` it, and the recorded previous directory, last
// until the block ends.
func (c Context) Chdir(dir string) {
	c.t.oldpwd = c.t.dir
	c.t.dir = dir
	c.t.in.visits.record(dir, c.t.host.Now())
}

// Visited lists the directories this session has navigated to (each
// Chdir records one; at most MaxJumpDirs are kept) whose path contains
// query, case-insensitively (all of them for ""), best first: ranked by
// how often and how lately, doubled when query is in the last element.
func (c Context) Visited(query string) []string {
	return c.t.in.visits.ranked(query, c.t.host.Now())
}

// OldDir is the directory left by the last Chdir in this dynamic context
// ("" when none).
func (c Context) OldDir() string { return c.t.oldpwd }

// DirStack is the directory stack of this dynamic context (most recent
// first): the session's at top level, a block-local copy inside `with`.
// Do not modify it; replace it with SetDirStack.
func (c Context) DirStack() []string { return c.t.dirStack }

// SetDirStack replaces the directory stack of this dynamic context.
func (c Context) SetDirStack(s []string) { c.t.dirStack = s }

// Now is the wall clock for bookkeeping (not gated; see host.Host.Now).
func (c Context) Now() value.DateTime { return value.DateTime{T: c.t.host.Now()} }

// BuiltinCall is one invocation of a builtin command.
type BuiltinCall struct {
	Context
	Name  string
	Args  []value.Value // positional values; globs already expanded to paths
	Flags []Flag
	Stdin []byte // from `<` or .feed; nil when none
	// Syntax is the call as written, for a Quoted builtin in command form
	// (its Args and Flags are then empty); nil otherwise.
	Syntax *syntax.CmdCall

	sc   *scope
	t    *thread
	decl []leash.FlagSpec // the builtin's declared flags
	// mode is the position the builtin was called in (modeValue when
	// its output is redirected): `run` runs its program the same way.
	mode mode
}

// Has reports whether any of the named flags was given.
func (c *BuiltinCall) Has(names ...string) bool {
	for _, f := range c.Flags {
		for _, n := range names {
			if f.Name == n {
				return true
			}
		}
	}
	return false
}

// Flag reports whether the flag declared with long name long was given,
// as `--long` or one of the short letters its declaration lists (so `-r`,
// `-R` and `--recursive` are one flag for rm). It reads the builtin's
// Flags, the declaration plans read too.
func (c *BuiltinCall) Flag(long string) bool {
	short := ""
	for _, s := range c.decl {
		if s.Long == long {
			short = s.Short
		}
	}
	for _, f := range c.Flags {
		if !f.Short && f.Name == long || f.Short && short != "" && strings.Contains(short, f.Name) {
			return true
		}
	}
	return false
}

// FlagValue returns the value of a `--name=value` flag.
func (c *BuiltinCall) FlagValue(name string) (value.Value, bool) {
	for _, f := range c.Flags {
		if f.Name == name && f.Value != nil {
			return f.Value, true
		}
	}
	return nil, false
}

// ArgText renders positional argument i as command text (strings and
// paths raw, other scalars inline).
func (c *BuiltinCall) ArgText(i int) (string, error) {
	return argText(c.Args[i])
}

// Errorf builds a language error for this builtin.
func (c *BuiltinCall) Errorf(code, format string, args ...any) *value.Error {
	return value.Errorf(code, c.Name+": "+format, args...)
}

// cmdLine is the display form of the invocation.
func (c *BuiltinCall) cmdLine() string {
	parts := []string{c.Name}
	for _, f := range c.Flags {
		switch {
		case f.Short:
			parts = append(parts, "-"+f.Name)
		case f.Value != nil:
			s, _ := argText(f.Value)
			parts = append(parts, "--"+f.Name+"="+s)
		default:
			parts = append(parts, "--"+f.Name)
		}
	}
	for _, a := range c.Args {
		s, err := argText(a)
		if err != nil {
			s = value.Inline(a)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// invokeBuiltin runs a builtin and shapes its result for the position.
func (t *thread) invokeBuiltin(b *Builtin, call *BuiltinCall, m mode, redir *redirects) (value.Value, error) {
	call.Context = Context{t: t}
	call.t = t
	call.decl = b.Flags
	call.mode = m
	if redir != nil && redir.out != "" {
		call.mode = modeValue
	}
	if b.Session && t.fnDepth > 0 {
		hint := b.SessionHint
		if hint == "" {
			hint = "it changes session state; call it at the top level"
		}
		return nil, errorf(codeCustom, "%s cannot be used inside a function body: %s", b.Name, hint)
	}
	if helpRequested(b, call) {
		v := value.Str(builtinHelp(b))
		if m&mEmit != 0 {
			t.emit(v)
		}
		return v, nil
	}
	if err := checkFlags(b, call.Flags); err != nil {
		return nil, err
	}
	v, err := b.Run(call)
	if err != nil {
		return nil, err
	}
	if v == nil {
		v = value.Nil
	}
	if redir != nil && redir.out != "" {
		if err := t.writeRedirect(redir, renderForFile(v)); err != nil {
			return nil, err
		}
		// The output went to the file: like a program whose stdout was
		// redirected, the result keeps none of it, so nothing is shown.
		if b.Bare {
			return value.Nil, nil
		}
		return builtinOutcome(call.cmdLine(), value.Nil), nil
	}
	var res value.Value = v
	if !b.Bare {
		res = builtinOutcome(call.cmdLine(), v)
	}
	if m&mEmit != 0 && !b.Quiet {
		t.emit(v)
	}
	return res, nil
}

// emit prints a statement-position result.
func (t *thread) emit(v value.Value) {
	switch x := v.(type) {
	case value.Null:
		return
	case *value.Outcome:
		if x.Builtin {
			t.emit(x.Out)
			return
		}
		_, _ = t.stdout.Write(x.Stdout)
		_, _ = t.stderr.Write(x.Stderr)
		return
	case value.Str:
		_, _ = io.WriteString(t.stdout, string(x)+"\n")
		return
	case value.Bytes:
		// Bytes passed through (cat) print exactly, as the program the
		// builtin stands for would: no newline added, binary data kept.
		_, _ = io.WriteString(t.stdout, string(x))
		return
	}
	st := t.in.opts.Display
	if t.style != nil {
		st = *t.style
	}
	_, _ = io.WriteString(t.stdout, value.DisplayStyled(v, 0, st)+"\n")
}

// renderForFile is the text a builtin result writes through `>`.
func renderForFile(v value.Value) []byte {
	switch x := v.(type) {
	case value.Null:
		return nil
	case value.Str:
		return []byte(string(x) + "\n")
	case value.Bytes:
		return []byte(x)
	}
	return []byte(value.Display(v) + "\n")
}

// checkFlags refuses a flag the builtin does not declare: plans read flags
// from the same declaration, so an ignored flag would be a flag the plan
// and the run disagree about.
func checkFlags(b *Builtin, flags []Flag) error {
	if b.Verbatim || b.TextFlags {
		return nil
	}
	for _, f := range flags {
		spec, ok := lookupFlag(b.Flags, f)
		spelled := "--" + f.Name
		if f.Short {
			spelled = "-" + f.Name
		}
		if !ok {
			return errorf(codeArg, "%s: unknown flag %s", b.Name, spelled).WithHint(flagHint(b) + programHint(b.Name, flags))
		}
		if spec.Value && f.Value == nil {
			return errorf(codeArg, "%s: flag %s needs a value", b.Name, spelled).WithHint(valueFlagHint(spec.Long))
		}
	}
	return nil
}

// valueFlagHint says how a value flag takes its value: the next word, or
// after an = (the only form for a value that starts with -).
func valueFlagHint(long string) string {
	return "--" + long + " VALUE, or --" + long + "=VALUE for a value that starts with -"
}

// lookupFlag finds the declaration of a given flag: a long name, or a
// short letter listed in some declaration.
func lookupFlag(specs []leash.FlagSpec, f Flag) (leash.FlagSpec, bool) {
	for _, s := range specs {
		if f.Short && len(f.Name) == 1 && strings.Contains(s.Short, f.Name) || !f.Short && s.Long == f.Name {
			return s, true
		}
	}
	return leash.FlagSpec{}, false
}

// flagHint lists what a builtin accepts, for an unknown-flag error.
func flagHint(b *Builtin) string {
	if len(b.Flags) == 0 {
		return b.Name + " takes no flags; after -- every word is an argument"
	}
	parts := make([]string, 0, len(b.Flags))
	for _, s := range b.Flags {
		var alts []string
		for _, r := range s.Short {
			alts = append(alts, "-"+string(r))
		}
		if s.Long != "" {
			l := "--" + s.Long
			if s.Value {
				l += " VALUE"
			}
			alts = append(alts, l)
		}
		parts = append(parts, strings.Join(alts, "/"))
	}
	return b.Name + " accepts " + strings.Join(parts, ", ")
}
