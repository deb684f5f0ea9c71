package lsp

import (
	"context"
	"encoding/json"

	"github.com/shoalgo/shoal/internal/lsp/protocol"
)

// Navigation over the document's bindings: definition, references,
// rename and the outline, all from the index (a document that does not
// parse has none).

// target is the declaration at or used at off in a document that parses.
func (s *Server) target(params json.RawMessage, p *protocol.TextDocumentPositionParams) (*document, *index, int, error) {
	d, off, err := s.positioned(params, p)
	if err != nil {
		return nil, nil, -1, err
	}
	an := d.analysis()
	if an.idx == nil {
		return d, nil, -1, nil
	}
	return d, an.idx, an.idx.defAt(off), nil
}

func (s *Server) definition(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.TextDocumentPositionParams
	d, ix, i, err := s.target(params, &p)
	if err != nil || i < 0 {
		return nil, err
	}
	dd := ix.defs[i]
	return []protocol.Location{{URI: d.uri, Range: d.rangeOf(dd.start, dd.end)}}, nil
}

// uses lists the spans of declaration i's name: the declaration first
// (when asked for), then each use resolving to it.
func (ix *index) uses(i int, withDecl bool) [][2]int {
	var out [][2]int
	if withDecl {
		out = append(out, [2]int{ix.defs[i].start, ix.defs[i].end})
	}
	for _, r := range ix.refs {
		if r.def == i {
			out = append(out, [2]int{r.start, r.end})
		}
	}
	return out
}

func (s *Server) references(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.ReferenceParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ix, i, err := s.target(params, &p.TextDocumentPositionParams)
	if err != nil || i < 0 {
		return []protocol.Location{}, err
	}
	out := []protocol.Location{}
	for _, u := range ix.uses(i, p.Context.IncludeDeclaration) {
		out = append(out, protocol.Location{URI: d.uri, Range: d.rangeOf(u[0], u[1])})
	}
	return out, nil
}

func (s *Server) prepareRename(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.TextDocumentPositionParams
	d, ix, i, err := s.target(params, &p)
	if err != nil || i < 0 {
		return nil, err
	}
	off := d.offset(p.Position)
	for _, u := range ix.uses(i, true) {
		if off >= u[0] && off <= u[1] {
			r := d.rangeOf(u[0], u[1])
			return map[string]any{"range": r, "placeholder": ix.defs[i].name}, nil
		}
	}
	return nil, nil
}

func (s *Server) rename(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.RenameParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if !isName(p.NewName) {
		return nil, failf(protocol.CodeInvalidParams, "%q is not a name (letters, digits and _, not starting with a digit)", p.NewName)
	}
	d, ix, i, err := s.target(params, &p.TextDocumentPositionParams)
	if err != nil {
		return nil, err
	}
	if i < 0 {
		return nil, failf(protocol.CodeRequestFailed, "no binding declared in this document at the position")
	}
	edits := []protocol.TextEdit{}
	for _, u := range ix.uses(i, true) {
		edits = append(edits, protocol.TextEdit{Range: d.rangeOf(u[0], u[1]), NewText: p.NewName})
	}
	return protocol.WorkspaceEdit{Changes: map[string][]protocol.TextEdit{d.uri: edits}}, nil
}

// isName reports an identifier a binding may be renamed to.
func isName(s string) bool {
	if s == "" || len(s) > 256 || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !identByte(s[i]) || s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// documentSymbols is the outline: the top level's functions, aliases and
// bindings, each function with the bindings its body declares.
func (s *Server) documentSymbols(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.DocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out := []protocol.DocumentSymbol{}
	ix := d.analysis().idx
	if ix == nil {
		return out, nil
	}
	sym := func(dd def) protocol.DocumentSymbol {
		kind, detail := protocol.SymbolVariable, defKindNames[dd.kind]
		switch dd.kind {
		case defFn, defAlias:
			kind = protocol.SymbolFunction
		case defLet:
			kind = protocol.SymbolConstant
		}
		if dd.decl != nil {
			detail = fnSignature(d.text, dd.decl)
		} else if dd.typ != "" {
			detail += ": " + dd.typ
		}
		return protocol.DocumentSymbol{Name: dd.name, Detail: detail, Kind: kind,
			Range: d.rangeOf(int(dd.node.Start), int(dd.node.End)), SelectionRange: d.rangeOf(dd.start, dd.end)}
	}
	for _, dd := range ix.defs {
		if !dd.top || dd.kind > defAlias {
			continue
		}
		sy := sym(dd)
		if dd.decl != nil {
			for _, in := range ix.defs {
				if !in.top && (in.kind == defLet || in.kind == defVar || in.kind == defFn) &&
					in.node.Start >= dd.node.Start && in.node.End <= dd.node.End {
					sy.Children = append(sy.Children, sym(in))
				}
			}
		}
		out = append(out, sy)
	}
	return out, nil
}
