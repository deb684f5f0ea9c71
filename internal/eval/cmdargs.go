package eval

import (
	"strings"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// cmdValue is one evaluated command argument, before it is shaped into
// argv (externals), values and flags (builtins) or typed parameters
// (session functions).
type cmdValue struct {
	v        value.Value // positional value or flag value; nil for a bare flag
	flag     string      // long flag name
	short    string      // short flag letters
	dashdash bool        // `--`
	glob     bool        // v is an unexpanded *value.Glob from a glob word
}

func (c cmdValue) positional() bool { return c.flag == "" && c.short == "" && !c.dashdash }

// evalCmdArgs evaluates structured command words.
func (t *thread) evalCmdArgs(args []*syntax.CmdArg, sc *scope) ([]cmdValue, error) {
	out := make([]cmdValue, 0, len(args))
	for _, a := range args {
		cv, err := t.evalCmdArg(a, sc)
		if err != nil {
			return nil, withSpan(err, a.Span)
		}
		out = append(out, cv)
	}
	return out, nil
}

func (t *thread) evalCmdArg(a *syntax.CmdArg, sc *scope) (cmdValue, error) {
	switch a.Kind {
	case syntax.ArgWord:
		return cmdValue{v: value.Str(a.Text)}, nil
	case syntax.ArgPath:
		return cmdValue{v: value.Path(t.expandHome(a.Text))}, nil
	case syntax.ArgGlob:
		return cmdValue{v: &value.Glob{Pattern: a.Text}, glob: true}, nil
	case syntax.ArgStr, syntax.ArgExpr:
		if a.X == nil {
			return cmdValue{v: value.Str(a.Text)}, nil
		}
		v, err := t.eval(a.X, sc)
		if err != nil {
			return cmdValue{}, err
		}
		return cmdValue{v: v}, nil
	case syntax.ArgLongFlag:
		cv := cmdValue{flag: a.Name}
		if a.Value != nil {
			fv, err := t.evalCmdArg(a.Value, sc)
			if err != nil {
				return cmdValue{}, err
			}
			if fv.glob {
				fv.v = value.Str(fv.v.(*value.Glob).Pattern)
			}
			cv.v = fv.v
		}
		return cv, nil
	case syntax.ArgShortFlag:
		return cmdValue{short: a.Text}, nil
	case syntax.ArgDashDash:
		return cmdValue{dashdash: true}, nil
	case syntax.ArgDash:
		return cmdValue{v: value.Str("-")}, nil
	}
	return cmdValue{}, errorf(codeType, "unsupported command argument %q", a.Kind)
}

// argText renders a value as one command-line word.
// argTexts is argText of each of vs.
func argTexts(vs []value.Value) ([]string, error) {
	out := make([]string, len(vs))
	for i, v := range vs {
		s, err := argText(v)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

func argText(v value.Value) (string, error) {
	switch x := v.(type) {
	case value.Str:
		return string(x), nil
	case value.Path:
		return string(x), nil
	case value.Bytes:
		return string(x), nil
	case value.Null:
		return "", nil
	case *value.Glob:
		return x.Pattern, nil
	case value.Int, value.Float, value.Bool, value.Size, value.Duration, value.DateTime, value.Time, value.Range:
		return value.Inline(v), nil
	case *value.Secret:
		return "", errorf(codeType, "secret %s cannot be a command argument", x.Name)
	}
	return "", errorf(codeType, "%s cannot be a command argument", value.TypeName(v)).
		WithHint("pass scalars, strings or paths; render structured data explicitly, e.g. (x.json())")
}

// argv renders evaluated arguments for an external program, expanding
// globs against the working directory (no matches contribute nothing).
func (t *thread) argv(vals []cmdValue) ([]string, error) {
	out := make([]string, 0, len(vals))
	for _, cv := range vals {
		switch {
		case cv.dashdash:
			out = append(out, "--")
		case cv.short != "":
			out = append(out, "-"+cv.short)
		case cv.flag != "":
			if cv.v == nil {
				out = append(out, "--"+cv.flag)
				continue
			}
			s, err := argText(cv.v)
			if err != nil {
				return nil, err
			}
			out = append(out, "--"+cv.flag+"="+s)
		case cv.glob:
			matches, err := t.globStrings(cv.v.(*value.Glob))
			if err != nil {
				return nil, err
			}
			out = append(out, matches...)
		default:
			if l, ok := cv.v.(*value.List); ok {
				for _, it := range l.Items {
					switch it.(type) {
					case value.Str, value.Path:
					default:
						return nil, errorf(codeType, "only lists of str or path spread into arguments, found %s", value.TypeName(it))
					}
					s, _ := argText(it)
					out = append(out, s)
				}
				continue
			}
			if o, ok := cv.v.(*value.Outcome); ok {
				ov, err := t.outcomeOut(o)
				if err != nil {
					return nil, err
				}
				cv.v = ov
			}
			s, err := argText(cv.v)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// builtinArgs splits evaluated arguments into positional values and flags
// for a builtin. Globs expand to paths; after `--` flags are positional. A
// value flag of specs written `--name word` takes that word as its value,
// as `--name=word` would (leash.TakesNextWord: derivation reads the words
// the same way).
func (t *thread) builtinArgs(vals []cmdValue, verbatim bool, specs []leash.FlagSpec) ([]value.Value, []Flag, error) {
	var pos []value.Value
	var flags []Flag
	raw := verbatim
	for i := 0; i < len(vals); i++ {
		cv := vals[i]
		if !raw && cv.flag != "" && cv.v == nil && i+1 < len(vals) && vals[i+1].positional() && leash.TakesNextWord(specs, cv.flag) {
			i++
			v := vals[i].v
			if vals[i].glob {
				v = value.Str(v.(*value.Glob).Pattern)
			}
			flags = append(flags, Flag{Name: cv.flag, Value: v})
			continue
		}
		switch {
		case cv.dashdash:
			if raw {
				pos = append(pos, value.Str("--"))
			}
			raw = true
		case cv.short != "":
			if raw {
				pos = append(pos, value.Str("-"+cv.short))
				continue
			}
			for _, r := range cv.short {
				flags = append(flags, Flag{Name: string(r), Short: true})
			}
		case cv.flag != "":
			if raw {
				s := "--" + cv.flag
				if cv.v != nil {
					vs, _ := argText(cv.v)
					s += "=" + vs
				}
				pos = append(pos, value.Str(s))
				continue
			}
			flags = append(flags, Flag{Name: cv.flag, Value: cv.v})
		case cv.glob:
			l, err := t.expandGlob(cv.v.(*value.Glob))
			if err != nil {
				return nil, nil, err
			}
			pos = append(pos, l.Items...)
		default:
			pos = append(pos, cv.v)
		}
	}
	return pos, flags, nil
}

// displayCmd renders a command line for an outcome's cmd field.
func displayCmd(name string, args []string) string {
	var b strings.Builder
	b.WriteString(name)
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(shellQuote(a))
	}
	return b.String()
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool {
		return r <= ' ' || strings.ContainsRune("'\"\\$`|&;<>(){}[]*?!#~", r)
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
