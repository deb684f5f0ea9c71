package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/lsp/protocol"
)

// Options configure a server.
type Options struct {
	// Registry is the standard registry (required): names, help, flags,
	// effects.
	Registry *eval.Registry
	// Format formats a whole source (shoal fmt's code); nil: formatting
	// is not offered.
	Format func([]byte) ([]byte, error)
	// PathCommands lists the programs on PATH, for completion and for
	// telling an unknown command; nil: command heads are not checked.
	PathCommands func() []string
	// ReadDir lists a directory, for path completion; nil: no paths.
	ReadDir func(dir string) ([]fs.DirEntry, error)
	// Home is the directory `~` means.
	Home string
	// Kernel is a live session to complete, hover and diagnose with (its
	// names; its policy's verdicts when it is a PolicyKernel); nil: the
	// server knows only the document and the registry.
	Kernel Kernel
	// Version is the server's version, reported in initialize.
	Version string
}

// Kernel is what the server asks of an attached session.
type Kernel interface {
	// Complete completes src at the byte offset cursor in the session.
	Complete(ctx context.Context, src string, cursor int) ([]complete.Candidate, error)
	// Effects lists what running src would do, one line per effect, as
	// the session's explain derives it.
	Effects(ctx context.Context, src string) ([]string, error)
}

// Server is one language server connection.
type Server struct {
	opts        Options
	out         *protocol.Writer
	docs        map[string]*document
	initialized bool
	shutdown    bool
	att         *attachedState // attached mode's session knowledge (attached_*.go); nil unattached
	methods     methodSet      // the method names of every type, made on first use
}

// errRequest is a request that fails with a protocol error code.
type errRequest struct {
	code int
	msg  string
}

func (e *errRequest) Error() string { return e.msg }

func failf(code int, format string, args ...any) error {
	return &errRequest{code: code, msg: fmt.Sprintf(format, args...)}
}

// Serve runs a server over in and out until the client exits or the
// stream ends. It returns nil after `exit` following `shutdown`, an error
// otherwise (the caller's exit status).
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.Registry == nil {
		return errors.New("lsp: Options.Registry is required")
	}
	s := &Server{opts: opts, out: protocol.NewWriter(out), docs: map[string]*document{}}
	if opts.Kernel != nil {
		s.att = newAttachedState(s, opts.Kernel)
		s.opts.Kernel = s.att.k // every feature asks the session within a time bound
	}
	r := protocol.NewReader(in)
	for {
		body, err := r.ReadMessage()
		switch {
		case errors.Is(err, io.EOF):
			return errors.New("lsp: the client closed the stream without exit")
		case errors.Is(err, protocol.ErrFrameTooLarge), errors.Is(err, protocol.ErrBadHeader):
			s.replyError(nil, protocol.CodeInvalidRequest, err.Error())
			continue
		case err != nil:
			return fmt.Errorf("lsp: %w", err)
		}
		if err := protocol.CheckDepth(body); err != nil {
			s.replyError(nil, protocol.CodeInvalidRequest, err.Error())
			continue
		}
		var m protocol.Message
		if err := json.Unmarshal(body, &m); err != nil {
			s.replyError(nil, protocol.CodeParseError, "message is not JSON-RPC: "+err.Error())
			continue
		}
		if m.Method == "exit" {
			if s.shutdown {
				return nil
			}
			return errors.New("lsp: exit before shutdown")
		}
		s.handle(ctx, &m)
	}
}

// handle answers one message; nothing it does may end the server.
func (s *Server) handle(ctx context.Context, m *protocol.Message) {
	defer func() {
		if r := recover(); r != nil && m.IsRequest() {
			s.replyError(m.ID, protocol.CodeInternalError, fmt.Sprintf("internal error in %s: %v", m.Method, r))
		}
	}()
	if m.Method == "" {
		return // a response to something the server never asks
	}
	if !m.IsRequest() {
		s.notify(ctx, m)
		return
	}
	result, err := s.request(ctx, m)
	if err != nil {
		var re *errRequest
		if errors.As(err, &re) {
			s.replyError(m.ID, re.code, re.msg)
		} else {
			s.replyError(m.ID, protocol.CodeRequestFailed, err.Error())
		}
		return
	}
	s.send(protocol.Response{JSONRPC: "2.0", ID: m.ID, Result: result})
}

// request answers a request by its method.
func (s *Server) request(ctx context.Context, m *protocol.Message) (any, error) {
	if m.Method == "initialize" {
		s.initialized = true
		return s.initializeResult(), nil
	}
	if !s.initialized {
		return nil, failf(protocol.CodeServerNotInitialized, "%s before initialize", m.Method)
	}
	if m.Method == "shutdown" {
		s.shutdown = true
		return nil, nil
	}
	h, ok := request(m.Method)
	if !ok {
		return nil, failf(protocol.CodeMethodNotFound, "method %q is not served", m.Method)
	}
	return h(s, ctx, m.Params)
}

// request is the handler of each served request (a switch, not a map
// literal, which a package initialiser would build at every start of
// shoal).
func request(method string) (func(*Server, context.Context, json.RawMessage) (any, error), bool) {
	switch method {
	case "textDocument/completion":
		return (*Server).completion, true
	case "textDocument/hover":
		return (*Server).hover, true
	case "textDocument/signatureHelp":
		return (*Server).signatureHelp, true
	case "textDocument/definition":
		return (*Server).definition, true
	case "textDocument/references":
		return (*Server).references, true
	case "textDocument/rename":
		return (*Server).rename, true
	case "textDocument/prepareRename":
		return (*Server).prepareRename, true
	case "textDocument/documentSymbol":
		return (*Server).documentSymbols, true
	case "textDocument/semanticTokens/full":
		return (*Server).semanticTokens, true
	case "textDocument/formatting":
		return (*Server).formatting, true
	case "textDocument/codeAction":
		return (*Server).codeActions, true
	}
	return nil, false
}

// notify handles a notification; a bad one is reported to the client's
// log and dropped.
func (s *Server) notify(ctx context.Context, m *protocol.Message) {
	var err error
	switch m.Method {
	case "textDocument/didOpen":
		err = s.didOpen(ctx, m.Params)
	case "textDocument/didChange":
		err = s.didChange(ctx, m.Params)
	case "textDocument/didClose":
		err = s.didClose(m.Params)
	}
	if err != nil {
		s.send(protocol.Notification{JSONRPC: "2.0", Method: "window/logMessage",
			Params: map[string]any{"type": 1, "message": fmt.Sprintf("shoal lsp: %s: %v", m.Method, err)}})
	}
}

func (s *Server) initializeResult() protocol.InitializeResult {
	caps := map[string]any{
		"positionEncoding": "utf-16",
		"textDocumentSync": map[string]any{"openClose": true, "change": protocol.SyncIncremental},
		"completionProvider": map[string]any{
			"triggerCharacters": []string{".", "-", "/", "$"},
		},
		"hoverProvider":          true,
		"signatureHelpProvider":  map[string]any{"triggerCharacters": []string{"(", ","}},
		"definitionProvider":     true,
		"referencesProvider":     true,
		"renameProvider":         map[string]any{"prepareProvider": true},
		"documentSymbolProvider": true,
		"semanticTokensProvider": map[string]any{
			"legend": protocol.SemanticTokensLegend{TokenTypes: tokenTypes, TokenModifiers: []string{}},
			"full":   true,
		},
		"codeActionProvider": map[string]any{"codeActionKinds": []string{"quickfix"}},
	}
	if s.opts.Format != nil {
		caps["documentFormattingProvider"] = true
	}
	return protocol.InitializeResult{Capabilities: caps,
		ServerInfo: protocol.ServerInfo{Name: "shoal", Version: s.opts.Version}}
}

func (s *Server) send(v any) {
	body, err := json.Marshal(v)
	if err != nil {
		body, _ = json.Marshal(protocol.Notification{JSONRPC: "2.0", Method: "window/logMessage",
			Params: map[string]any{"type": 1, "message": "shoal lsp: cannot encode an answer: " + err.Error()}})
	}
	_ = s.out.WriteMessage(body) // a closed output ends the session at the next read
}

func (s *Server) replyError(id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	s.send(protocol.ErrorResponse{JSONRPC: "2.0", ID: id, Error: &protocol.ResponseError{Code: code, Message: msg}})
}

// decode reads params into v, an INVALID_PARAMS error when they do not fit.
func decode(params json.RawMessage, v any) error {
	if err := json.Unmarshal(params, v); err != nil {
		return failf(protocol.CodeInvalidParams, "bad params: %v", err)
	}
	return nil
}

// doc finds an open document by URI, failing for one not open or too large.
func (s *Server) doc(uri string) (*document, error) {
	d, ok := s.docs[uri]
	if !ok {
		return nil, failf(protocol.CodeInvalidParams, "document %s is not open", uri)
	}
	if d.tooBig {
		return nil, failf(protocol.CodeRequestFailed, "document %s: %v", uri, errTooLarge)
	}
	return d, nil
}

// positioned decodes position params and finds the document and offset.
func (s *Server) positioned(params json.RawMessage, p *protocol.TextDocumentPositionParams) (*document, int, error) {
	if err := decode(params, p); err != nil {
		return nil, 0, err
	}
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, 0, err
	}
	return d, d.offset(p.Position), nil
}

// dirOf is the directory of a file URI, "" for another scheme.
func dirOf(uri string) string {
	p, ok := strings.CutPrefix(uri, "file://")
	if !ok {
		return ""
	}
	p = unescapeURI(p)
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return "/"
}

// unescapeURI decodes %XX escapes of a URI path, leaving a bad one as is.
func unescapeURI(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) {
			if v, ok := unhex(p[i+1]); ok {
				if w, ok := unhex(p[i+2]); ok {
					b.WriteByte(v<<4 | w)
					i += 2
					continue
				}
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
