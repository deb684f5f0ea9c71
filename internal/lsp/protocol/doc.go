// Package protocol is the subset of the Language Server Protocol 3.17 that
// `shoal lsp` speaks: `Content-Length` framing over a byte stream, bounded
// in frame size, header size and JSON nesting (framing.go, limits.go), the
// JSON-RPC 2.0 envelope (jsonrpc.go) and the request and result types of
// the features the server offers (types.go), written by hand for the
// fields the server reads or writes and no others.
//
// Positions are the protocol's: a zero-based line and a UTF-16 code unit
// offset in it. Converting to and from the parser's byte offsets is the
// server's (internal/lsp's document.go).
package protocol
