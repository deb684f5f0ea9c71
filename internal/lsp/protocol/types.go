package protocol

import "encoding/json"

// Position is a zero-based line and UTF-16 code unit offset.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is the half-open [Start, End) between two positions.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// TextDocumentIdentifier names a document.
type TextDocumentIdentifier struct {
	URI string `json:"uri"`
}

// VersionedTextDocumentIdentifier names a version of a document.
type VersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
}

// TextDocumentItem is an opened document.
type TextDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int32  `json:"version"`
	Text       string `json:"text"`
}

// DidOpenTextDocumentParams are textDocument/didOpen's.
type DidOpenTextDocumentParams struct {
	TextDocument TextDocumentItem `json:"textDocument"`
}

// TextDocumentContentChangeEvent is one edit: Range replaced by Text, or
// the whole document when Range is nil.
type TextDocumentContentChangeEvent struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

// DidChangeTextDocumentParams are textDocument/didChange's.
type DidChangeTextDocumentParams struct {
	TextDocument   VersionedTextDocumentIdentifier  `json:"textDocument"`
	ContentChanges []TextDocumentContentChangeEvent `json:"contentChanges"`
}

// DidCloseTextDocumentParams are textDocument/didClose's.
type DidCloseTextDocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// TextDocumentPositionParams name a position in a document.
type TextDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

// ReferenceParams are textDocument/references'.
type ReferenceParams struct {
	TextDocumentPositionParams
	Context struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

// RenameParams are textDocument/rename's.
type RenameParams struct {
	TextDocumentPositionParams
	NewName string `json:"newName"`
}

// DocumentParams name a document alone (documentSymbol, semanticTokens,
// formatting).
type DocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// CodeActionParams are textDocument/codeAction's.
type CodeActionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Range        Range                  `json:"range"`
	Context      struct {
		Diagnostics []Diagnostic `json:"diagnostics"`
	} `json:"context"`
}

// Diagnostic severities.
const (
	SeverityError   = 1
	SeverityWarning = 2
	SeverityInfo    = 3
	SeverityHint    = 4
)

// Diagnostic is one problem in a document. Data carries a did-you-mean
// replacement for the code action.
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity int             `json:"severity"`
	Code     string          `json:"code,omitempty"`
	Source   string          `json:"source"`
	Message  string          `json:"message"`
	Data     json.RawMessage `json:"data,omitempty"`
}

// PublishDiagnosticsParams are textDocument/publishDiagnostics'.
type PublishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int32       `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// TextEdit replaces Range with NewText.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// WorkspaceEdit is a set of edits per document.
type WorkspaceEdit struct {
	Changes map[string][]TextEdit `json:"changes"`
}

// MarkupContent is Markdown or plain text.
type MarkupContent struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// Completion item kinds the server uses.
const (
	CompletionText      = 1
	CompletionMethod    = 2
	CompletionFunction  = 3
	CompletionField     = 5
	CompletionVariable  = 6
	CompletionModule    = 9
	CompletionProperty  = 10
	CompletionKeyword   = 14
	CompletionFile      = 17
	CompletionReference = 18
	CompletionFolder    = 19
	CompletionConstant  = 21
	CompletionOperator  = 24
)

// CompletionItem is one candidate.
type CompletionItem struct {
	Label    string    `json:"label"`
	Kind     int       `json:"kind,omitempty"`
	Detail   string    `json:"detail,omitempty"`
	TextEdit *TextEdit `json:"textEdit,omitempty"`
	SortText string    `json:"sortText,omitempty"`
}

// CompletionList is textDocument/completion's result.
type CompletionList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []CompletionItem `json:"items"`
}

// Hover is textDocument/hover's result.
type Hover struct {
	Contents MarkupContent `json:"contents"`
	Range    *Range        `json:"range,omitempty"`
}

// ParameterInformation is one parameter of a signature; Label is its
// [start, end) UTF-16 offsets in the signature's label.
type ParameterInformation struct {
	Label [2]uint32 `json:"label"`
}

// SignatureInformation is one callable's signature.
type SignatureInformation struct {
	Label         string                 `json:"label"`
	Documentation *MarkupContent         `json:"documentation,omitempty"`
	Parameters    []ParameterInformation `json:"parameters"`
}

// SignatureHelp is textDocument/signatureHelp's result.
type SignatureHelp struct {
	Signatures      []SignatureInformation `json:"signatures"`
	ActiveSignature uint32                 `json:"activeSignature"`
	ActiveParameter uint32                 `json:"activeParameter"`
}

// Symbol kinds the server uses.
const (
	SymbolFunction = 12
	SymbolVariable = 13
	SymbolConstant = 14
)

// DocumentSymbol is one declared name with its children.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           int              `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children,omitempty"`
}

// SemanticTokens is textDocument/semanticTokens/full's result.
type SemanticTokens struct {
	Data []uint32 `json:"data"`
}

// CodeAction is one fix.
type CodeAction struct {
	Title       string         `json:"title"`
	Kind        string         `json:"kind"`
	Diagnostics []Diagnostic   `json:"diagnostics,omitempty"`
	IsPreferred bool           `json:"isPreferred,omitempty"`
	Edit        *WorkspaceEdit `json:"edit,omitempty"`
}

// InitializeParams are the parts of initialize's params the server reads.
type InitializeParams struct {
	ProcessID *int `json:"processId"`
}

// SemanticTokensLegend names the token types by index.
type SemanticTokensLegend struct {
	TokenTypes     []string `json:"tokenTypes"`
	TokenModifiers []string `json:"tokenModifiers"`
}

// ServerInfo names the server.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// InitializeResult is initialize's result; Capabilities is built by the
// server as a map so that an unoffered feature is absent, not false.
type InitializeResult struct {
	Capabilities map[string]any `json:"capabilities"`
	ServerInfo   ServerInfo     `json:"serverInfo"`
}

// Text document sync kinds.
const (
	SyncFull        = 1
	SyncIncremental = 2
)
