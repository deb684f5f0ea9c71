package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/lsp/protocol"
	"github.com/shoalgo/shoal/internal/syntax"
)

// hover describes what is at the position: a method's or builtin's help
// from the registry, a command's effects as a plan derives them (the
// attached session's explain when there is one), a binding's declaration
// and type where its literal or annotation says it.
func (s *Server) hover(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.TextDocumentPositionParams
	d, off, err := s.positioned(params, &p)
	if err != nil {
		return nil, err
	}
	text, start, end := s.describe(ctx, d, off)
	if text == "" {
		return nil, nil
	}
	r := d.rangeOf(start, end)
	return protocol.Hover{Contents: protocol.MarkupContent{Kind: "markdown", Value: text}, Range: &r}, nil
}

// describe is the hover text for off and the span it covers.
func (s *Server) describe(ctx context.Context, d *document, off int) (string, int, int) {
	an := d.analysis()
	if an.prog == nil {
		start, end := wordAt(d.text, off)
		if start == end {
			return "", 0, 0
		}
		return s.help(d.text[start:end]), start, end
	}
	var text string
	var start, end int
	syntax.Walk(an.prog, func(n syntax.Node) bool {
		sp := n.Pos()
		if off < int(sp.Start) || off > int(sp.End) {
			return false
		}
		switch n := n.(type) {
		case *syntax.MethodCall:
			if sp := n.NameSpan; off >= int(sp.Start) && off <= int(sp.End) {
				name := n.Name
				if ns := namespaceOf(s.opts.Registry, an.idx, n, 0); ns != "" {
					name = ns + "." + n.Name
				}
				text, start, end = s.help(name), int(sp.Start), int(sp.End)
			}
		case *syntax.CmdCall:
			if h := n.Head; h != nil && off >= int(h.Span.Start) && off <= int(h.Span.End) {
				text, start, end = s.commandHover(ctx, d, an.idx, n), int(h.Span.Start), int(h.Span.End)
			}
		case *syntax.Field:
			if v, ok := n.X.(*syntax.Var); ok && s.opts.Registry.Namespace(v.Name) && off > int(v.Span.End) {
				text, start, end = s.help(v.Name+"."+n.Name), int(v.Span.End)+1, int(sp.End)
			}
		case *syntax.Var:
			text, start, end = s.nameHover(ctx, d, an.idx, n.Name, int(sp.Start)), int(sp.Start), int(sp.End)
		}
		return true
	})
	if text == "" {
		if i := an.idx.defAt(off); i >= 0 {
			dd := an.idx.defs[i]
			return s.defHover(d, dd), dd.start, dd.end
		}
	}
	return text, start, end
}

// help is the registry's help for name as a code block, "" when none.
func (s *Server) help(name string) string {
	h, ok := s.opts.Registry.HelpText(name)
	if !ok {
		return ""
	}
	return "```text\n" + strings.TrimRight(h, "\n") + "\n```"
}

// commandHover is a command head's help (or its function's declaration)
// and what running the command would do.
func (s *Server) commandHover(ctx context.Context, d *document, ix *index, c *syntax.CmdCall) string {
	var b strings.Builder
	if i := ix.resolve(c.Head.Text, int(c.Head.Span.Start), true); i >= 0 && c.Head.Kind == syntax.ArgWord {
		b.WriteString(s.defHover(d, ix.defs[i]))
	} else if h := s.help(c.Head.Text); h != "" {
		b.WriteString(h)
	} else {
		fmt.Fprintf(&b, "`%s`: a program on PATH", c.Head.Text)
	}
	effects := s.effects(ctx, d, c)
	if len(effects) > 0 {
		b.WriteString("\n\n**effects**\n")
		for _, e := range effects {
			b.WriteString("- " + e + "\n")
		}
	}
	return b.String()
}

// effects lists what the command would do: the session's explain when
// attached, else a plan derived here with the registry.
func (s *Server) effects(ctx context.Context, d *document, c *syntax.CmdCall) []string {
	src := d.text[c.Span.Start:c.Span.End]
	if s.opts.Kernel != nil {
		if es, err := s.opts.Kernel.Effects(ctx, src); err == nil {
			return es
		}
	}
	prog, err := syntax.Parse(src, syntax.ParseOptions{})
	if err != nil {
		return nil
	}
	plan := leash.Derive(prog, leash.Env{Registry: s.opts.Registry, Dir: dirOf(d.uri), Home: s.opts.Home})
	var out []string
	for _, e := range plan.Effects {
		out = append(out, EffectLine(string(e.Kind), e.Path, e.Program, e.Name))
	}
	if plan.Opaque {
		out = append(out, "opaque: "+strings.Join(plan.Notes, "; "))
	}
	return out
}

// EffectLine is one effect as hover shows it: its kind and what it acts on.
func EffectLine(kind, path, program, name string) string {
	line := "`" + kind + "`"
	for _, x := range []string{program, path, name} {
		if x != "" {
			line += " " + x
		}
	}
	return line
}

// nameHover describes a variable use: its declaration, else the
// registry's help, else what the attached session knows of it.
func (s *Server) nameHover(ctx context.Context, d *document, ix *index, name string, off int) string {
	if i := ix.resolve(name, off, false); i >= 0 {
		return s.defHover(d, ix.defs[i])
	}
	if h := s.help(name); h != "" {
		return h
	}
	if s.opts.Kernel != nil {
		cands, err := s.opts.Kernel.Complete(ctx, name, len(name))
		if err == nil {
			for _, c := range cands {
				if c.Label == name && c.Detail != "" {
					return fmt.Sprintf("```shoal\n%s: %s\n```\n(session binding)", name, c.Detail)
				}
			}
		}
	}
	return ""
}

// defHover shows a declaration: its kind, name and type, a function's
// signature and doc comment.
func (s *Server) defHover(d *document, dd def) string {
	var b strings.Builder
	b.WriteString("```shoal\n")
	switch {
	case dd.decl != nil:
		b.WriteString(fnSignature(d.text, dd.decl))
	case dd.typ != "":
		fmt.Fprintf(&b, "%s %s: %s", defKindNames[dd.kind], dd.name, dd.typ)
	default:
		fmt.Fprintf(&b, "%s %s", defKindNames[dd.kind], dd.name)
	}
	b.WriteString("\n```")
	if dd.decl != nil && dd.decl.Doc != "" {
		b.WriteString("\n" + dd.decl.Doc)
	}
	return b.String()
}

// fnSignature is `fn name(params)` as written.
func fnSignature(src string, f *syntax.FnDecl) string {
	var ps []string
	for _, p := range f.Params {
		ps = append(ps, src[p.Span.Start:p.Span.End])
	}
	if f.Rest != nil {
		ps = append(ps, "..."+f.Rest.Name)
	}
	sig := "fn " + f.Name + "(" + strings.Join(ps, ", ") + ")"
	if f.Return != nil {
		sig += " -> " + src[f.Return.Span.Start:f.Return.Span.End]
	}
	return sig
}

// wordAt is the span of the name (letters, digits, _, -, .) around off.
func wordAt(src string, off int) (int, int) {
	in := func(b byte) bool { return identByte(b) || b == '-' || b == '.' }
	start, end := off, off
	for start > 0 && in(src[start-1]) {
		start--
	}
	for end < len(src) && in(src[end]) {
		end++
	}
	for start < end && src[start] == '.' {
		start++
	}
	return start, end
}
