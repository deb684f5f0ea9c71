package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/shoalgo/shoal/internal/lsp/protocol"
	"github.com/shoalgo/shoal/internal/syntax"
)

// tokenTypes is the semantic token legend, indexed by tokenType.
var tokenTypes = []string{"keyword", "string", "number", "operator", "method", "comment", "variable", "function", "parameter", "macro"}

// tokenType maps the highlighter's classes (syntax.Tokens, the one
// classification the REPL colours by) to the legend; -1 is not sent.
var tokenType = [syntax.NumClasses]int{
	syntax.ClassPlain:    -1,
	syntax.ClassKeyword:  0,
	syntax.ClassLiteral:  0,
	syntax.ClassCommand:  7,
	syntax.ClassString:   1,
	syntax.ClassNumber:   2,
	syntax.ClassFlag:     8,
	syntax.ClassOperator: 3,
	syntax.ClassMethod:   4,
	syntax.ClassComment:  5,
	syntax.ClassError:    -1,
	syntax.ClassVariable: 6,
	syntax.ClassPath:     1,
}

// semanticTokens classifies the whole document, each token split at line
// ends (clients need not support multi-line tokens).
func (s *Server) semanticTokens(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	var bound map[string]bool
	if ix := d.analysis().idx; ix != nil {
		bound = map[string]bool{}
		for _, dd := range ix.defs {
			if dd.kind != defFn && dd.kind != defAlias {
				bound[dd.name] = true
			}
		}
	}
	toks := syntax.Tokens(d.text, func(n string) bool { return bound[n] })
	data := make([]uint32, 0, len(toks)*5)
	var prevLine, prevChar uint32
	emit := func(start, end, typ int) {
		if start >= end {
			return
		}
		a, b := d.position(start), d.position(end)
		if a.Line != b.Line {
			return
		}
		dl, dc := a.Line-prevLine, a.Character
		if dl == 0 {
			dc = a.Character - prevChar
		}
		data = append(data, dl, dc, b.Character-a.Character, uint32(typ), 0)
		prevLine, prevChar = a.Line, a.Character
	}
	for _, t := range toks {
		typ := tokenType[t.Class]
		if typ < 0 {
			continue
		}
		for start := t.Start; start < t.End; {
			end := t.End
			if nl := strings.IndexByte(d.text[start:t.End], '\n'); nl >= 0 {
				end = start + nl
			}
			emit(start, end, typ)
			start = end + 1
		}
	}
	return protocol.SemanticTokens{Data: data}, nil
}

// formatting replaces the document with its formatted form (Options.Format,
// shoal fmt's code), one edit, none when it is already formatted.
func (s *Server) formatting(_ context.Context, params json.RawMessage) (any, error) {
	if s.opts.Format == nil {
		return nil, failf(protocol.CodeMethodNotFound, "formatting is not offered by this build")
	}
	var p protocol.DocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out, err := s.opts.Format([]byte(d.text))
	if err != nil {
		return nil, failf(protocol.CodeRequestFailed, "cannot format: %v", err)
	}
	if string(out) == d.text {
		return []protocol.TextEdit{}, nil
	}
	return []protocol.TextEdit{{Range: d.rangeOf(0, len(d.text)), NewText: string(out)}}, nil
}
