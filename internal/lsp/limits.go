package lsp

import "time"

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

// Bounds of attached mode (--kernel): what it caches of the session and
// how long it waits for it (attached_*.go).
const (
	// MaxAttachedVerdicts bounds the policy verdicts kept, by explained
	// source (least recently used evicted first); the statements'
	// derived purity is kept under the same bound.
	MaxAttachedVerdicts = 4096
	// MaxAttachedNames bounds the session names kept (bound or not).
	MaxAttachedNames = 4096
	// MaxAttachedCacheBytes bounds the bytes of each cache's keys.
	MaxAttachedCacheBytes = 8 << 20
	// MaxExplainSource bounds a statement (with the declarations it uses)
	// sent to explain; a longer one gets no verdict.
	MaxExplainSource = 64 << 10
	// MaxJudgedStatements bounds the top-level statements of a document
	// the policy judges; those after it get no verdict.
	MaxJudgedStatements = 2000
	// MaxContextDecls bounds the document's declarations sent with a
	// statement to explain.
	MaxContextDecls = 32
	// AttachedFlushEvery is how many kernel answers the worker gathers
	// before publishing a document again.
	AttachedFlushEvery = 64
	// AttachedRefresh is how long an answer is used before it is asked
	// again (still shown meanwhile): the session's bindings and policy
	// change.
	AttachedRefresh = 30 * time.Second
	// KernelCallTimeout bounds one call to the attached kernel.
	KernelCallTimeout = 500 * time.Millisecond
	// KernelRetryAfter is how long the kernel is left alone after a call
	// failed or timed out; meanwhile the server is unattached.
	KernelRetryAfter = 5 * time.Second
)
