package lsp

// Bounds on what an editor can make the server hold, beside the framing
// bounds of internal/lsp/protocol; docs/kernel.md's bounds table lists
// them.
const (
	// MaxDocumentBytes bounds one open document. A document that grows
	// past it is dropped (its requests fail with RequestFailed and one
	// diagnostic says why) until a change brings it back under.
	MaxDocumentBytes = 4 << 20
	// MaxDocuments bounds the open documents; opening one more fails
	// (the editor is told with window/showMessage) until one is closed.
	MaxDocuments = 256
	// MaxDiagnostics bounds the diagnostics published for one version
	// (each unknown name costs a did-you-mean search); past it one more
	// says the rest are not shown.
	MaxDiagnostics = 500
	// MaxChangesPerNotification bounds the content changes one didChange
	// may carry.
	MaxChangesPerNotification = 4096
)
