package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/lsp/protocol"
	"github.com/shoalgo/shoal/internal/value"
)

// completion completes at the position: through the attached session
// when there is one (it knows the live bindings), else from the document
// and the registry, with internal/complete classifying the position as
// the REPL and the kernel do.
func (s *Server) completion(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.TextDocumentPositionParams
	d, off, err := s.positioned(params, &p)
	if err != nil {
		return nil, err
	}
	var cands []complete.Candidate
	if s.opts.Kernel != nil {
		cands, err = s.opts.Kernel.Complete(ctx, d.text, off)
		if err != nil {
			s.logf("completion through the kernel failed, completing from the document: %v", err)
			cands = nil
		}
	}
	from := d.current().completionFrom(off)
	local := complete.Complete(d.text[from:], off-from, s.completeContext(d, off))
	for i := range local {
		local[i].Replace.Start += int32(from)
		local[i].Replace.End += int32(from)
	}
	if cands == nil {
		cands = local
	} else {
		cands = mergeCandidates(cands, local) // the document's own names too
	}
	// complete bounds the candidates (complete.MaxCandidates), the
	// kernel's answer too.
	list := protocol.CompletionList{Items: make([]protocol.CompletionItem, 0, len(cands))}
	for i, c := range cands {
		start, end := int(c.Replace.Start), int(c.Replace.End)
		if start < 0 || end > len(d.text) || start > end {
			start, end = off, off
		}
		list.Items = append(list.Items, protocol.CompletionItem{
			Label: c.Label, Kind: itemKind(c.Kind), Detail: c.Detail,
			SortText: fmt.Sprintf("%04d", i),
			TextEdit: &protocol.TextEdit{Range: d.rangeOf(start, end), NewText: c.Label},
		})
	}
	return list, nil
}

// completeContext is what completion knows without a session: the
// document's names visible at off (those of the last version that parsed
// while the current one does not), the registry, PATH and listings.
func (s *Server) completeContext(d *document, off int) complete.Context {
	reg := s.opts.Registry
	idx := d.current().idx
	if idx == nil {
		idx = d.lastIdx
		off = len(d.text) // positions moved: everything the last version declared
	}
	// The names are listed only when completion asks for them (a method
	// after `x.` needs only x's kind).
	var values, commands []string
	listed := false
	list := func() {
		if !listed && idx != nil {
			values, commands, _ = idx.visibleNames(off)
		}
		listed = true
	}
	return complete.Context{
		Names:        func() []string { list(); return values },
		Builtins:     reg.BuiltinNames,
		Commands:     func() []string { list(); return commands },
		PathCommands: s.opts.PathCommands,
		Flags:        reg.BuiltinFlags,
		Methods:      reg.MethodNames,
		KindOf: func(n string) (value.Kind, bool) {
			return value.KindByName(idx.kindOf(n, off))
		},
		Namespaces: reg.NamespaceNames,
		Members:    reg.NamespaceMembers,
		Dir:        dirOf(d.uri),
		Home:       s.opts.Home,
		ReadDir:    s.opts.ReadDir,
	}
}

// itemKind maps a completion kind to the protocol's.
func itemKind(k string) int {
	switch k {
	case complete.KindBuiltin, complete.KindCommand, complete.KindFunction:
		return protocol.CompletionFunction
	case complete.KindVariable:
		return protocol.CompletionVariable
	case complete.KindMethod:
		return protocol.CompletionMethod
	case complete.KindPath:
		return protocol.CompletionFile
	case complete.KindNamespace:
		return protocol.CompletionModule
	case complete.KindKeyword:
		return protocol.CompletionKeyword
	case complete.KindField:
		return protocol.CompletionField
	case complete.KindFlag:
		return protocol.CompletionProperty
	}
	return protocol.CompletionText
}

// logf writes to the client's log.
func (s *Server) logf(format string, args ...any) {
	s.send(protocol.Notification{JSONRPC: "2.0", Method: "window/logMessage",
		Params: map[string]any{"type": 3, "message": "shoal lsp: " + fmt.Sprintf(format, args...)}})
}
