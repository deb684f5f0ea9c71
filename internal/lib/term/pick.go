// Package term is the terminal library: `.pick` on a list or table, where
// the person chooses on the session's terminal (eval's Context.Terminal).
// The items are listed numbered and the person types a number (or, with
// multi: true, several); an empty answer or Ctrl-D cancels, which is an
// error rather than a made-up choice. Without an interactive terminal (a
// script, -c, the kernel) pick is an argument error. Its entries are one
// registry Part.
package term

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// Register adds the pick methods to p.
func Register(p *eval.Part) {
	// pick reads the person's answer at the session's terminal, which the
	// gate does not name as an effect.
	help := eval.Help{Summary: "let the person pick items at the terminal; the chosen item (or list, with multi)", Usage: ".pick(prompt: TEXT, multi: BOOL)", Example: "[\"a\", \"b\"].pick(prompt: \"which> \")"}
	p.Method(&eval.Method{Kind: value.KList, Name: "pick", Call: pickMethod, Effects: eval.EffNone, Help: help})
	p.Method(&eval.Method{Kind: value.KTable, Name: "pick", Call: pickMethod, Effects: eval.EffNone, Help: help})
}

// Part is term's registry part, for eval.NewRegistry.
func Part() *eval.Part {
	p := &eval.Part{}
	Register(p)
	return p
}

// pickMethod is `.pick(prompt:, multi:)`.
func pickMethod(c *eval.MethodCall, recv value.Value, a value.Args) (value.Value, error) {
	if len(a.Pos) > 0 {
		return nil, value.Errorf(value.CodeArg, ".pick takes only named arguments").WithHint(`.pick(prompt: "file> ", multi: true)`)
	}
	prompt, multi := "pick> ", false
	for _, na := range a.Named {
		switch na.Name {
		case "prompt":
			s, ok := na.Value.(value.Str)
			if !ok {
				return nil, value.Errorf(value.CodeType, ".pick prompt: must be str, got %s", value.TypeName(na.Value))
			}
			prompt = string(s)
		case "multi":
			b, ok := na.Value.(value.Bool)
			if !ok {
				return nil, value.Errorf(value.CodeType, ".pick multi: must be bool, got %s", value.TypeName(na.Value))
			}
			multi = bool(b)
		default:
			return nil, value.Errorf(value.CodeArg, ".pick has no argument %q", na.Name).WithHint("it takes prompt: and multi:")
		}
	}
	x := c.Thread()
	tty := x.Terminal()
	if tty == nil {
		return nil, value.Errorf(value.CodeArg, ".pick needs an interactive terminal").
			WithHint("a script, -c or the kernel has none: choose in code, e.g. .where(…).first()")
	}
	items := pickItems(recv)
	if len(items) == 0 {
		return nil, value.Errorf(value.CodeArg, ".pick: there is nothing to pick from")
	}
	menu := pickMenu(items)
	for try := 0; ; try++ {
		line, err := x.Host().ReadTerminalLine(x.Ctx(), int(tty.Fd()), menu+prompt, MaxPickLine)
		switch {
		case errors.Is(err, io.EOF):
			return nil, value.Errorf(value.CodeCancelled, ".pick cancelled")
		case errors.Is(err, host.ErrLineTooLong):
			return nil, value.Errorf(value.CodeArg, ".pick: the answer is longer than %d bytes", MaxPickLine)
		case err != nil:
			if x.Ctx().Err() != nil {
				return nil, value.Errorf(value.CodeCancelled, ".pick cancelled")
			}
			return nil, eval.HostError(err)
		}
		idx, perr := pickParse(line, len(items), multi)
		if perr == "" && idx == nil {
			return nil, value.Errorf(value.CodeCancelled, ".pick cancelled")
		}
		if perr == "" {
			if !multi {
				return items[idx[0]], nil
			}
			out := make([]value.Value, len(idx))
			for i, k := range idx {
				out[i] = items[k]
			}
			return pickResult(recv, out), nil
		}
		if try+1 >= MaxPickTries {
			return nil, value.Errorf(value.CodeArg, ".pick: %s", perr)
		}
		menu = perr + "\n"
	}
}

// pickItems is a list's items or a table's rows.
func pickItems(v value.Value) []value.Value {
	switch x := v.(type) {
	case *value.List:
		return x.Items
	case *value.Table:
		out := make([]value.Value, x.N)
		for i := range out {
			out[i] = x.Row(i)
		}
		return out
	}
	return nil
}

// pickResult is the chosen items as the receiver's shape: a table of rows
// from a table, a list from a list.
func pickResult(recv value.Value, items []value.Value) value.Value {
	t, ok := recv.(*value.Table)
	if !ok {
		return value.NewList(items)
	}
	data := make([][]value.Value, len(t.Cols))
	for _, it := range items {
		vals := it.(*value.Record).Values()
		for c := range data {
			data[c] = append(data[c], vals[c])
		}
	}
	return &value.Table{Cols: t.Cols, Data: data, N: len(items)}
}

// pickMenu numbers the items from 1, each on one line cut to MaxPickWidth
// runes, at most MaxPickShown of them.
func pickMenu(items []value.Value) string {
	var b strings.Builder
	for i, it := range items {
		if i == MaxPickShown {
			fmt.Fprintf(&b, "  … %d more (numbers up to %d are accepted)\n", len(items)-i, len(items))
			break
		}
		s := []rune(value.Inline(it))
		if len(s) > MaxPickWidth {
			s = append(s[:MaxPickWidth-1], '…')
		}
		fmt.Fprintf(&b, "%4d  %s\n", i+1, string(s))
	}
	return b.String()
}

// pickParse reads the answer: one number from 1 to n, or with multi
// several separated by spaces or commas. An empty answer is nil with no
// problem (cancel); a bad one is a problem to show before asking again.
func pickParse(line string, n int, multi bool) (idx []int, problem string) {
	fields := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\r' })
	if len(fields) == 0 {
		return nil, ""
	}
	if !multi && len(fields) > 1 {
		return nil, "pick one number"
	}
	seen := map[int]bool{}
	for _, f := range fields {
		k, err := strconv.Atoi(f)
		if err != nil || k < 1 || k > n {
			return nil, fmt.Sprintf("%q is not a number from 1 to %d", f, n)
		}
		if !seen[k] {
			seen[k] = true
			idx = append(idx, k-1)
		}
	}
	return idx, ""
}
