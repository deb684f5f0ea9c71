package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/shoalgo/shoal/internal/lsp/protocol"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Diagnostic codes.
const (
	codeParse          = "parse_error"
	codeUnknownCommand = "unknown_command"
	codeUnknownName    = "unknown_name"
	codeUnknownMethod  = "unknown_method"
	codeTooLarge       = "too_large"
	codeTooMany        = "too_many"
)

// fixData is a diagnostic's data when a did-you-mean applies: the text
// that replaces the diagnostic's range.
type fixData struct {
	Replace string `json:"replace"`
}

// predeclared are the names a session or script binds before any source
// runs.
var predeclared = []string{"args", "script", "it", "out", "env"}

// diagnostics lists the document's problems: its parse error (with the
// hint), else the names, commands and methods nothing declares.
func (s *Server) diagnostics(ctx context.Context, d *document) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	if d.tooBig {
		return append(out, protocol.Diagnostic{Severity: protocol.SeverityError, Code: codeTooLarge, Source: "shoal",
			Message: fmt.Sprintf("the document is larger than %d bytes; the language server ignores it", MaxDocumentBytes)})
	}
	an := d.current()
	if an.err != nil {
		msg := an.err.Msg
		if an.err.Hint != "" {
			msg += "\nhint: " + an.err.Hint
		}
		out = append(out, protocol.Diagnostic{Range: d.rangeOf(int(an.err.Span.Start), int(an.err.Span.End)),
			Severity: protocol.SeverityError, Code: codeParse, Source: "shoal", Message: msg})
		return out
	}
	reg := s.opts.Registry
	var path map[string]bool
	if s.opts.PathCommands != nil {
		path = map[string]bool{}
		for _, n := range s.opts.PathCommands() {
			path[n] = true
		}
	}
	ix := an.idx
	for _, r := range ix.refs {
		if len(out) >= MaxDiagnostics {
			break
		}
		if r.def >= 0 || slices.Contains(predeclared, r.name) || strings.HasPrefix(r.name, syntax.ImplicitParam) {
			continue
		}
		if r.command {
			if path == nil || reg.IsBuiltin(r.name) || path[r.name] {
				continue
			}
			values, commands, _ := ix.visibleNames(r.start)
			cands := append(append(reg.BuiltinNames(), commands...), values...)
			out = append(out, unknown(d, r.start, r.end, codeUnknownCommand,
				fmt.Sprintf("unknown command `%s`: not a builtin, a function or alias here, or a program on PATH", r.name),
				value.Suggest(r.name, cands)))
			continue
		}
		if _, ok := reg.Usage(r.name); ok || reg.IsBuiltin(r.name) || reg.Namespace(r.name) {
			continue
		}
		values, commands, _ := ix.visibleNames(r.start)
		cands := append(append(append(values, commands...), reg.FuncNames()...), reg.NamespaceNames()...)
		out = append(out, unknown(d, r.start, r.end, codeUnknownName,
			fmt.Sprintf("unknown name `%s`: nothing declares it here", r.name), value.Suggest(r.name, cands)))
	}
	for m, lag := range an.methodCalls() {
		if len(out) >= MaxDiagnostics {
			break
		}
		if m.NameSpan.End <= m.NameSpan.Start {
			continue
		}
		start, end := int(m.NameSpan.Start)+lag, int(m.NameSpan.End)+lag
		if ns := namespaceOf(reg, an.idx, m, lag); ns != "" {
			members := reg.NamespaceMembers(ns)
			if !slices.Contains(members, m.Name) {
				out = append(out, unknown(d, start, end, codeUnknownMethod,
					fmt.Sprintf("unknown member `%s.%s`: the namespace has no such member", ns, m.Name), value.Suggest(m.Name, members)))
			}
			continue
		}
		if s.isMethod(m.Name) {
			continue
		}
		out = append(out, unknown(d, start, end, codeUnknownMethod,
			fmt.Sprintf("unknown method `.%s`: no type has it", m.Name), value.Suggest(m.Name, reg.AllMethods())))
	}
	if len(out) >= MaxDiagnostics {
		out = append(out[:MaxDiagnostics], protocol.Diagnostic{Severity: protocol.SeverityInfo, Code: codeTooMany, Source: "shoal",
			Message: fmt.Sprintf("more than %d problems; the rest are not shown", MaxDiagnostics)})
	}
	return out
}

// namespaceOf names the namespace a call's receiver is (`os` in
// `os.hostname()`), "" when it is a value; lag is what to add to the
// call's spans (see stmtFrag.lag).
func namespaceOf(reg interface{ Namespace(string) bool }, ix *index, m *syntax.MethodCall, lag int) string {
	v, ok := m.X.(*syntax.Var)
	if !ok || !reg.Namespace(v.Name) || ix.resolve(v.Name, int(v.Span.Start)+lag, false) >= 0 {
		return ""
	}
	return v.Name
}

// unknown is a warning about a name, with its did-you-mean (when there is
// one) in the message and the data the code action reads.
func unknown(d *document, start, end int, code, msg, suggestion string) protocol.Diagnostic {
	diag := protocol.Diagnostic{Range: d.rangeOf(start, end), Severity: protocol.SeverityWarning,
		Code: code, Source: "shoal", Message: msg}
	if suggestion != "" {
		diag.Message += "; did you mean `" + suggestion + "`?"
		diag.Data, _ = json.Marshal(fixData{Replace: suggestion})
	}
	return diag
}

// codeActions offers a quick fix for each did-you-mean diagnostic the
// client sends back that touches the requested range.
func (s *Server) codeActions(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.CodeActionParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if _, err := s.doc(p.TextDocument.URI); err != nil {
		return nil, err
	}
	actions := []protocol.CodeAction{}
	for _, diag := range p.Context.Diagnostics {
		if len(diag.Data) == 0 || !strings.HasPrefix(diag.Code, "unknown_") {
			continue
		}
		var fix fixData
		if json.Unmarshal(diag.Data, &fix) != nil || fix.Replace == "" || !isIdent(fix.Replace) {
			continue
		}
		actions = append(actions, protocol.CodeAction{
			Title: "Change to `" + fix.Replace + "`", Kind: "quickfix", IsPreferred: true,
			Diagnostics: []protocol.Diagnostic{diag},
			Edit: &protocol.WorkspaceEdit{Changes: map[string][]protocol.TextEdit{
				p.TextDocument.URI: {{Range: diag.Range, NewText: fix.Replace}}}},
		})
	}
	return actions, nil
}

// isIdent reports a name a fix may write (data comes back from the client).
func isIdent(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !identByte(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}
