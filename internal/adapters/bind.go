package adapters

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

// WordKind classifies one evaluated command word.
type WordKind uint8

// Word kinds.
const (
	Positional WordKind = iota // a value: word, string, path, glob, expression
	Long                       // --name or --name=value
	Short                      // -abc
	DashDash                   // --
)

// Word is one command word as the caller evaluated it (or, for plan
// derivation, as far as it is known without running anything).
type Word struct {
	Kind    WordKind
	Name    string      // Long: the flag name; Short: the letters
	Value   value.Value // Positional: the value; Long: the =value, nil when absent
	Unknown bool        // the value is not known before running
}

// Arg is one bound parameter.
type Arg struct {
	Value   value.Value // the coerced value (a list for list<T>)
	Unknown bool
}

// Piece is one argv word of the adapted call: Prefix, then the text of
// Value when there is one. Expand asks the caller to expand a glob value
// into the paths it matches; a glob-typed parameter keeps its pattern.
type Piece struct {
	Prefix  string
	Value   value.Value
	Unknown bool
	Expand  bool
}

// Bound is a call bound to its command's declaration.
type Bound struct {
	Cmd  *Command
	Spec *Spec
	Sub  string         // the selected subcommand; "" for the top level
	Args map[string]Arg // parameters the call bound
	Argv []Piece        // the words after the binary: the invoke template, then the forwarded flags and arguments
	// Pass, when set, is why the call passes through to the program
	// unmodelled (its first word the declaration does not model): Argv is
	// then the words as written and Spec has no pinned format and no parser.
	Pass string
}

// OkCodes are the exit statuses the call accepts.
func (b *Bound) OkCodes() []int {
	if b.Spec.OkCodes != nil {
		return b.Spec.OkCodes
	}
	return b.Cmd.OkCodes
}

// Label is the call's name in messages: "cargo build".
func (b *Bound) Label() string {
	if b.Sub == "" {
		return b.Cmd.Name
	}
	return b.Cmd.Name + " " + b.Sub
}

// Bind checks a call's words against cmd's declaration and builds the
// argv that runs it. What the declaration models it types: a value of the
// wrong type for a declared flag is an arg_error and the program is never
// started. What it does not model (an undeclared flag, a positional word
// past the declared ones, a value-taking flag with no value, a missing
// positional the program may not need) makes the call pass through: the
// words reach the program as written, after its subcommand, with no
// pinned format and no parser (Bound.Pass says why). A Shoal-side
// subcommand name the program does not know (`git stash_list`) cannot pass
// through, so its unmodelled words stay an arg_error.
func Bind(cmd *Command, words []Word) (*Bound, error) {
	b := &Bound{Cmd: cmd, Spec: cmd.Top, Args: map[string]Arg{}}
	all := words
	if len(words) > 0 && words[0].Kind == Positional && !words[0].Unknown {
		if s, ok := words[0].Value.(value.Str); ok {
			if spec, ok := cmd.Subs[string(s)]; ok {
				b.Spec, b.Sub, words = spec, string(s), words[1:]
			}
		}
	}
	err := b.bind(words)
	var p *passError
	if !errors.As(err, &p) {
		return b, err
	}
	if b.Sub != "" && (len(b.Spec.Invoke) == 0 || b.Spec.Invoke[0] != b.Sub) {
		return nil, p.refusal.WithHint(fmt.Sprintf("%s is Shoal's name for `%s %s`; write the program's own words to pass it flags the adapter does not model, or use ^%s",
			b.Sub, cmd.Bin, strings.Join(b.Spec.Invoke, " "), cmd.Name))
	}
	return b.passThrough(all, p.refusal), nil
}

// BindRaw is Bind for a call whose stdout goes to a file: the file gets
// what the program itself writes, so a call the declaration would run in
// a pinned machine format with a parser (`git log > log.txt`) passes
// through as written instead. Validation is Bind's.
func BindRaw(cmd *Command, words []Word) (*Bound, error) {
	b, err := Bind(cmd, words)
	if err != nil || b.Pass != "" || b.Spec.Parse == "none" {
		return b, err
	}
	if b.Sub != "" && (len(b.Spec.Invoke) == 0 || b.Spec.Invoke[0] != b.Sub) {
		return b, nil // a Shoal-side name: only its pinned form exists
	}
	return b.passThrough(words, value.Errorf(value.CodeArg, "stdout is redirected, so the program writes its own format")), nil
}

// passError is a word the declaration does not model: the call passes
// through, or, where it cannot, is refused with refusal.
type passError struct{ refusal *value.Error }

func (p *passError) Error() string { return p.refusal.Error() }

// pass is a passError with an arg_error's text.
func (b *Bound) pass(e *value.Error) error { return &passError{refusal: e} }

// passThrough makes b the program's own call: the words as written (the
// subcommand word included), the spec's ok codes and effects, no pinned
// format and no parser. A declared flag written Shoal's way
// (`--max_count`) reaches the program in its spelling (`--max-count`).
func (b *Bound) passThrough(words []Word, why *value.Error) *Bound {
	spec := *b.Spec
	spec.Invoke, spec.HasInvoke, spec.Parse, spec.Consumed, spec.Open = nil, false, "none", nil, true
	out := &Bound{Cmd: b.Cmd, Spec: &spec, Sub: b.Sub, Args: b.Args, Pass: why.Msg}
	raw := false
	for _, w := range words {
		if w.Kind == DashDash {
			raw = true
		}
		if w.Kind == Long && !raw {
			name := strings.ReplaceAll(w.Name, "-", "_")
			if typ, ok := b.Spec.Params[name]; ok {
				if typ.Name == "bool" && (w.Value != nil || w.Unknown) {
					// --release=false leaves the flag out, as when bound.
					if on, err := b.boolValue(name, Arg{Value: w.Value, Unknown: w.Unknown}); err == nil {
						if on {
							out.Argv = append(out.Argv, Piece{Prefix: spelling(name)})
						}
						continue
					}
				}
				if len(w.Name) == 1 {
					// --n=10 is Shoal's spelling of -n 10.
					out.Argv = append(out.Argv, Piece{Prefix: "-" + w.Name})
					if w.Value != nil || w.Unknown {
						out.Argv = append(out.Argv, rawPiece(Word{Kind: Positional, Value: w.Value, Unknown: w.Unknown}))
					}
					continue
				}
				w.Name = strings.ReplaceAll(w.Name, "_", "-")
			}
		}
		out.Argv = append(out.Argv, rawPiece(w))
	}
	return out
}

// bind binds words to b.Spec, building b.Argv; a *passError when a word
// is not modelled.
func (b *Bound) bind(words []Word) error {
	spec := b.Spec
	for _, w := range spec.Invoke {
		b.Argv = append(b.Argv, Piece{Prefix: w})
	}
	if spec.Open {
		for _, w := range words {
			b.Argv = append(b.Argv, rawPiece(w))
		}
		return nil
	}
	pos := 0 // next positional parameter
	raw := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		if raw {
			b.Argv = append(b.Argv, rawPiece(w))
			continue
		}
		switch w.Kind {
		case DashDash:
			b.Argv = append(b.Argv, Piece{Prefix: "--"})
			raw = true
		case Long:
			name := w.Name
			typ, ok := spec.Params[name]
			if !ok {
				// The program's own spelling (--no-deps) names the
				// same parameter as Shoal's (--no_deps).
				name = strings.ReplaceAll(name, "-", "_")
				if typ, ok = spec.Params[name]; !ok {
					return b.pass(b.unknownFlag("--" + w.Name))
				}
			}
			arg := Arg{Value: w.Value, Unknown: w.Unknown}
			if typ.Name == "bool" {
				on, err := b.boolValue(name, arg)
				if err != nil {
					return err
				}
				if !on {
					continue
				}
				b.Args[name] = Arg{Value: value.Bool(true)}
				if !spec.Consumed[name] {
					b.Argv = append(b.Argv, Piece{Prefix: spelling(name)})
				}
				continue
			}
			if w.Value == nil && !w.Unknown {
				if i+1 >= len(words) || words[i+1].Kind != Positional {
					return b.pass(b.argError("--%s needs a %s value", name, spec.ParamText[name]))
				}
				i++
				arg = Arg{Value: words[i].Value, Unknown: words[i].Unknown}
			}
			if err := b.bindValue(name, arg, spelling(name), false); err != nil {
				return err
			}
		case Short:
			letters := w.Name
			for j := 0; j < len(letters); j++ {
				name, ok := spec.Short[letters[j]]
				if !ok {
					return b.pass(b.unknownFlag("-" + letters[j:j+1]))
				}
				if spec.Params[name].Name == "bool" {
					b.Args[name] = Arg{Value: value.Bool(true)}
					if !spec.Consumed[name] {
						b.Argv = append(b.Argv, Piece{Prefix: "-" + letters[j:j+1]})
					}
					continue
				}
				if j != len(letters)-1 {
					// The rest of the group is the value, attached
					// (-n5, -mfix): the getopt convention.
					if err := b.bindValue(name, Arg{Value: value.Str(letters[j+1:])}, "-"+letters[j:j+1], true); err != nil {
						return err
					}
					break
				}
				if i+1 >= len(words) || words[i+1].Kind != Positional {
					return b.pass(b.argError("-%c needs a %s value", letters[j], spec.ParamText[name]))
				}
				i++
				if err := b.bindValue(name, Arg{Value: words[i].Value, Unknown: words[i].Unknown}, "-"+letters[j:j+1], false); err != nil {
					return err
				}
			}
		default:
			if pos >= len(spec.Positional) {
				what := "a value known only at run time"
				if !w.Unknown {
					what = value.InlineShort(w.Value, 40)
				}
				return b.pass(b.argError("%s is past the positional arguments the adapter declares", what))
			}
			name := spec.Positional[pos]
			typ := spec.Params[name]
			if typ.Name == "list" {
				// A list parameter takes every following positional word.
				items := []value.Value{}
				unknown := false
				for ; i < len(words) && words[i].Kind == Positional; i++ {
					x := words[i]
					if x.Unknown {
						unknown = true
						b.Argv = append(b.Argv, Piece{Unknown: true})
						continue
					}
					v, err := b.coerce(name, typ.Args[0], x.Value)
					if err != nil {
						return err
					}
					items = append(items, spreadItems(v)...)
					b.Argv = append(b.Argv, positionalPiece(v, typ.Args[0]))
				}
				i--
				b.Args[name] = Arg{Value: value.NewList(items), Unknown: unknown}
				pos++
				continue
			}
			pos++
			if w.Unknown {
				b.Args[name] = Arg{Unknown: true}
				b.Argv = append(b.Argv, Piece{Unknown: true})
				continue
			}
			v, err := b.coerce(name, typ, w.Value)
			if err != nil {
				return err
			}
			b.Args[name] = Arg{Value: v}
			b.Argv = append(b.Argv, positionalPiece(v, typ))
		}
	}
	for ; pos < len(spec.Positional); pos++ {
		name := spec.Positional[pos]
		if typ := spec.Params[name]; !typ.Optional && typ.Name != "list" {
			return b.pass(b.argError("missing <%s> (%s)", name, spec.ParamText[name]))
		}
	}
	return nil
}

// bindValue binds a value-taking flag and forwards it unless consumed.
// A list parameter given more than once collects every value.
// Attached keeps the value in the flag's word (-n5), as it was written.
func (b *Bound) bindValue(name string, arg Arg, flag string, attached bool) error {
	typ := b.Spec.Params[name]
	fresh := arg.Value
	if !arg.Unknown {
		v, err := b.coerce(name, typ, arg.Value)
		if err != nil {
			return err
		}
		arg.Value, fresh = v, v
		if prev, ok := b.Args[name]; ok && typ.Name == "list" && !prev.Unknown {
			arg.Value = value.NewList(append(append([]value.Value(nil), spreadItems(prev.Value)...), spreadItems(v)...))
		}
	}
	b.Args[name] = arg
	if b.Spec.Consumed[name] {
		return nil
	}
	if arg.Unknown {
		b.Argv = append(b.Argv, Piece{Prefix: flag}, Piece{Unknown: true})
		return nil
	}
	elem := typ
	if typ.Name == "list" {
		elem = typ.Args[0]
	}
	for _, it := range spreadItems(fresh) {
		if attached {
			b.Argv = append(b.Argv, Piece{Prefix: flag, Value: it})
			continue
		}
		b.Argv = append(b.Argv, Piece{Prefix: flag}, positionalPiece(it, elem))
	}
	return nil
}

func (b *Bound) boolValue(name string, arg Arg) (bool, error) {
	if arg.Value == nil || arg.Unknown {
		return true, nil
	}
	switch v := arg.Value.(type) {
	case value.Bool:
		return bool(v), nil
	case value.Str:
		switch v {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, b.argError("--%s is a flag (bool), got %s", name, value.InlineShort(arg.Value, 80))
}

// spreadItems is a list's items, or the value itself.
func spreadItems(v value.Value) []value.Value {
	if l, ok := v.(*value.List); ok {
		return l.Items
	}
	return []value.Value{v}
}

// coerce checks one value against a declared type and converts a word
// to it: `--jobs 8` binds the int 8, `--jobs "many"` is an arg_error.
func (b *Bound) coerce(name string, typ value.TypeSpec, v value.Value) (value.Value, error) {
	if typ.Optional && isNull(v) {
		return v, nil
	}
	if typ.Name == "list" {
		if l, ok := v.(*value.List); ok {
			items := make([]value.Value, len(l.Items))
			for i, it := range l.Items {
				c, err := b.coerce(name, typ.Args[0], it)
				if err != nil {
					return nil, err
				}
				items[i] = c
			}
			return value.NewList(items), nil
		}
		return b.coerce(name, typ.Args[0], v)
	}
	base := value.TypeSpec{Name: typ.Name}
	if typ.Name == "size_kb" {
		base.Name = "int"
	}
	if g, ok := v.(*value.Glob); ok {
		if typ.Name == "glob" || typ.Name == "path" || typ.Name == "str" {
			return g, nil // expanded (or kept) by the caller
		}
	}
	c, err := value.CoerceSpec(v, base)
	if err == nil && accepts(base.Name, c) {
		if typ.Name == "size_kb" {
			if n := c.(value.Int); n < 0 {
				return nil, b.argError("--%s expects a nonnegative count of KiB blocks, got %d", name, int64(n))
			}
		}
		return c, nil
	}
	if o, ok := v.(*value.Outcome); ok && base.Name == "str" {
		return o, nil
	}
	what := "<" + name + ">"
	if !contains(b.Spec.Positional, name) {
		what = "--" + name
	}
	return nil, b.argError("%s expects %s, got %s", what, strings.TrimSuffix(b.Spec.ParamText[name], "?"), value.InlineShort(v, 80)).WithHint(
		fmt.Sprintf("the %s adapter declares %s as %s; ^%s passes words to the program unchecked", b.Cmd.Name, name, b.Spec.ParamText[name], b.Cmd.Name))
}

func isNull(v value.Value) bool {
	_, ok := v.(value.Null)
	return ok || v == nil
}

// accepts reports whether a coerced value is of the declared scalar type.
func accepts(typ string, v value.Value) bool {
	switch typ {
	case "str":
		switch v.(type) {
		case value.Str, value.Path, value.Int, value.Float, value.Bool, value.Size, value.Duration, value.DateTime, value.Time, value.Bytes:
			return true
		}
		return false
	case "int":
		_, ok := v.(value.Int)
		return ok
	case "float":
		switch v.(type) {
		case value.Float, value.Int:
			return true
		}
		return false
	case "bool":
		_, ok := v.(value.Bool)
		return ok
	case "path":
		switch v.(type) {
		case value.Path, value.Str:
			return true
		}
		return false
	case "glob":
		switch v.(type) {
		case *value.Glob, value.Str, value.Path:
			return true
		}
		return false
	case "size":
		_, ok := v.(value.Size)
		return ok
	case "duration":
		_, ok := v.(value.Duration)
		return ok
	case "time":
		switch v.(type) {
		case value.Time, value.DateTime:
			return true
		}
		return false
	}
	return false
}

// spelling is how the program sees a parameter: `-n` for a one-letter
// name, `--max-count` for max_count.
func spelling(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + strings.ReplaceAll(name, "_", "-")
}

// positionalPiece forwards a bound value: a glob-typed parameter keeps
// its pattern for the program; a glob in any other position is expanded.
func positionalPiece(v value.Value, typ value.TypeSpec) Piece {
	_, isGlob := v.(*value.Glob)
	return Piece{Value: v, Expand: isGlob && typ.Name != "glob"}
}

// rawPiece forwards a word the declaration does not model, as written.
func rawPiece(w Word) Piece {
	switch w.Kind {
	case DashDash:
		return Piece{Prefix: "--"}
	case Short:
		return Piece{Prefix: "-" + w.Name}
	case Long:
		if w.Unknown {
			return Piece{Prefix: "--" + w.Name + "=", Unknown: true}
		}
		if w.Value == nil {
			return Piece{Prefix: "--" + w.Name}
		}
		return Piece{Prefix: "--" + w.Name + "=", Value: w.Value}
	}
	if w.Unknown {
		return Piece{Unknown: true}
	}
	_, isGlob := w.Value.(*value.Glob)
	return Piece{Value: w.Value, Expand: isGlob}
}

// argError is an arg_error about one call.
func (b *Bound) argError(format string, args ...any) *value.Error {
	return value.Errorf(value.CodeArg, "%s: %s", b.Label(), fmt.Sprintf(format, args...))
}

func (b *Bound) unknownFlag(flag string) *value.Error {
	names := make([]string, 0, len(b.Spec.Params))
	for n := range b.Spec.Params {
		if !contains(b.Spec.Positional, n) {
			names = append(names, "--"+n)
		}
	}
	sort.Strings(names)
	known := "no flags"
	if len(names) > 0 {
		known = strings.Join(names, ", ")
	}
	return b.argError("unknown flag %s (the adapter declares %s)", flag, known).WithHint(
		fmt.Sprintf("^%s passes flags the adapter does not model straight to the program", b.Cmd.Name))
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
