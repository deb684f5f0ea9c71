package eval

import (
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// callWords calls a session function with command syntax: `f a b --flag
// v`. Words are coerced to the declared parameter types; `--name value`
// and `--name=value` bind named parameters, a bool parameter flag binds by
// presence; list parameters collect glob expansions.
func (t *thread) callWords(c *Closure, call *syntax.CmdCall, sc *scope, m mode, o *cmdOpts) (value.Value, error) {
	vals, err := t.cmdValues(call, sc, o)
	if err != nil {
		return nil, err
	}
	pos, named, help, err := t.bindWords(c, vals)
	if err != nil {
		return nil, err
	}
	if help {
		return value.Str(helpText(c)), nil
	}
	v, err := t.callClosure(c, pos, named)
	if err != nil {
		return nil, err
	}
	redir, err := t.evalRedirects(call.Redirects, sc)
	if err != nil {
		return nil, err
	}
	if redir.out != "" {
		// The result went to the file; nothing is left to show.
		return value.Nil, t.writeRedirect(redir, renderForFile(v))
	}
	if m&mEmit != 0 {
		t.emit(v)
	}
	return v, nil
}

func helpText(c *Closure) string {
	if c.Doc != "" {
		return c.String() + "\n" + c.Doc
	}
	return c.String()
}

// bindWords turns evaluated command words into call arguments for c.
func (t *thread) bindWords(c *Closure, vals []cmdValue) (pos []value.Value, named []value.NamedArg, help bool, err error) {
	var words []cmdValue
	for i := 0; i < len(vals); i++ {
		cv := vals[i]
		switch {
		case cv.dashdash:
			words = append(words, vals[i+1:]...)
			i = len(vals)
		case cv.short != "":
			for _, r := range cv.short {
				p := findParam(c, string(r))
				if p == nil || !isBoolParam(p) {
					return nil, nil, false, errorf(codeArg, "unknown flag `-%c`", r).WithHint(signatureHint(c))
				}
				named = append(named, value.NamedArg{Name: p.Name, Value: value.Bool(true)})
			}
		case cv.flag != "":
			p := findParam(c, cv.flag)
			if p == nil {
				if cv.flag == "help" {
					return nil, nil, true, nil
				}
				return nil, nil, false, errorf(codeArg, "unknown argument `%s`", cv.flag).WithHint(signatureHint(c))
			}
			v := cv.v
			switch {
			case v != nil:
			case isBoolParam(p):
				v = value.Bool(true)
			case i+1 < len(vals) && vals[i+1].positional():
				i++
				v = vals[i].v
				if vals[i].glob {
					v = value.Str(v.(*value.Glob).Pattern)
				}
			default:
				return nil, nil, false, errorf(codeArg, "--%s requires a value", cv.flag).WithHint(signatureHint(c))
			}
			cv, err := coerceWord(v, p)
			if err != nil {
				return nil, nil, false, err
			}
			named = append(named, value.NamedArg{Name: p.Name, Value: cv})
		default:
			words = append(words, cv)
		}
	}
	// Positional words fill the parameters not bound by name, in order.
	wi := 0
	for _, p := range c.Params {
		if _, ok := namedArg(named, p.Name); ok {
			continue
		}
		if wi >= len(words) {
			break
		}
		v, err := t.wordFor(words[wi], p)
		if err != nil {
			return nil, nil, false, err
		}
		pos = append(pos, v)
		wi++
	}
	for ; wi < len(words); wi++ {
		w := words[wi]
		if c.Rest == nil {
			pos = append(pos, w.v) // reported as surplus by the call
			continue
		}
		if w.glob {
			l, err := t.expandGlob(w.v.(*value.Glob))
			if err != nil {
				return nil, nil, false, err
			}
			for _, it := range l.Items {
				v, err := coerceElem(it, c.Rest)
				if err != nil {
					return nil, nil, false, err
				}
				pos = append(pos, v)
			}
			continue
		}
		v, err := coerceElem(w.v, c.Rest)
		if err != nil {
			return nil, nil, false, err
		}
		pos = append(pos, v)
	}
	return pos, named, false, nil
}

func findParam(c *Closure, name string) *syntax.Param {
	for _, p := range c.Params {
		if p.Name == name {
			return p
		}
	}
	alt := strings.ReplaceAll(name, "-", "_")
	for _, p := range c.Params {
		if p.Name == alt {
			return p
		}
	}
	return nil
}

func isBoolParam(p *syntax.Param) bool {
	if p.Type != nil {
		return p.Type.Name == "bool"
	}
	if b, ok := p.Default.(*syntax.BoolLit); ok {
		_ = b
		return true
	}
	return false
}

// wordFor shapes one positional word for parameter p: a glob parameter
// keeps the pattern, a list parameter collects the expansion.
func (t *thread) wordFor(w cmdValue, p *syntax.Param) (value.Value, error) {
	if w.glob {
		g := w.v.(*value.Glob)
		switch {
		case p.Type == nil || p.Type.Name == "glob":
			return g, nil
		case p.Type.Name == "list":
			matches, err := t.globStrings(g)
			if err != nil {
				return nil, err
			}
			items := make([]value.Value, len(matches))
			for i, m := range matches {
				items[i] = value.Str(m)
			}
			return coerceWord(value.NewList(items), p)
		default:
			return coerceWord(value.Str(g.Pattern), p)
		}
	}
	if p.Type != nil && p.Type.Name == "list" {
		if _, isList := w.v.(*value.List); !isList {
			return coerceWord(value.NewList([]value.Value{w.v}), p)
		}
	}
	return coerceWord(w.v, p)
}

// coerceWord converts a command word to p's declared type, reporting the
// word on failure.
func coerceWord(v value.Value, p *syntax.Param) (value.Value, error) {
	if p.Type == nil {
		return v, nil
	}
	cv, err := coerceType(v, p.Type)
	if err != nil {
		return nil, wordError(err, v, p.Name)
	}
	return cv, nil
}

func coerceElem(v value.Value, rest *syntax.Param) (value.Value, error) {
	et := restElemType(rest)
	if et == nil {
		return v, nil
	}
	cv, err := coerceType(v, et)
	if err != nil {
		return nil, wordError(err, v, rest.Name)
	}
	return cv, nil
}

func wordError(err error, v value.Value, param string) error {
	e, ok := err.(*value.Error)
	if !ok {
		return err
	}
	word := value.Inline(v)
	if s, ok := v.(value.Str); ok {
		word = string(s)
	}
	msg := e.Msg
	if !strings.Contains(msg, word) {
		msg = "`" + word + "`: " + msg
	}
	ne := errorf(codeArg, "cannot bind %s to `%s`", msg, param)
	ne.Hint = e.Hint
	return ne
}
