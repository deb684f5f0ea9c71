// Package lsp is `shoal lsp`: a Language Server Protocol 3.17 server for
// Shoal sources over a framed byte stream (internal/lsp/protocol). It
// keeps the open documents (incremental sync, UTF-16 positions), parses
// each with internal/syntax and answers from the tree and the standard
// registry: diagnostics (parse errors with their hints; unknown commands,
// names and methods with a did-you-mean and a code action that applies
// it), completion (internal/complete, as the REPL and the kernel
// complete), hover (the registry's help, a command's effects as plans
// derive them, a binding's type where a literal tells it), signature
// help, definition, references, rename, document symbols, semantic tokens
// and formatting (through Options.Format).
//
// It touches no operating system resource itself: the caller supplies
// the programs on PATH, directory listings and, attached to a kernel, a
// session (Options.Kernel) for completion and hover.
package lsp
