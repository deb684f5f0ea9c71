package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/shoalgo/shoal/internal/lsp/protocol"
)

// Document synchronisation: didOpen, didChange (incremental), didClose,
// each followed by the document's diagnostics.

func (s *Server) didOpen(ctx context.Context, params json.RawMessage) error {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	if _, open := s.docs[p.TextDocument.URI]; !open && len(s.docs) >= MaxDocuments {
		s.send(protocol.Notification{JSONRPC: "2.0", Method: "window/showMessage",
			Params: map[string]any{"type": 1, "message": fmt.Sprintf("shoal lsp: more than %d open documents; close one first", MaxDocuments)}})
		return fmt.Errorf("more than %d open documents", MaxDocuments)
	}
	d := newDocument(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
	s.docs[d.uri] = d
	s.publish(ctx, d)
	return nil
}

func (s *Server) didChange(ctx context.Context, params json.RawMessage) error {
	var p protocol.DidChangeTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return fmt.Errorf("document %s is not open", p.TextDocument.URI)
	}
	if len(p.ContentChanges) > MaxChangesPerNotification {
		return fmt.Errorf("%d changes in one notification, the bound is %d", len(p.ContentChanges), MaxChangesPerNotification)
	}
	d.version = p.TextDocument.Version
	var err error
	for _, ch := range p.ContentChanges {
		if err = d.apply(ch); err != nil {
			break
		}
	}
	s.publish(ctx, d)
	return err
}

func (s *Server) didClose(params json.RawMessage) error {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	delete(s.docs, p.TextDocument.URI)
	if s.att != nil {
		s.att.forget(p.TextDocument.URI)
	}
	s.send(protocol.Notification{JSONRPC: "2.0", Method: "textDocument/publishDiagnostics",
		Params: protocol.PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}}})
	return nil
}

// publish sends the document's diagnostics.
func (s *Server) publish(ctx context.Context, d *document) {
	diags := s.diagnostics(ctx, d)
	if s.att != nil {
		s.att.publish(d, diags) // with the session's names and policy verdicts
		return
	}
	v := d.version
	s.send(protocol.Notification{JSONRPC: "2.0", Method: "textDocument/publishDiagnostics",
		Params: protocol.PublishDiagnosticsParams{URI: d.uri, Version: &v, Diagnostics: diags}})
}
