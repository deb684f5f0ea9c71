// Package kernel is Shoal's long-lived JSON-RPC server: it listens on a
// Unix socket, checks each peer's uid, reads bounded frames, routes requests
// through one method table that says which methods need session.attach, and
// keeps sessions keyed by (principal, name), each with its own evaluator and
// transcript of addressable values (out:N).
//
// The kernel never evaluates source itself: it hands source and a context
// to a session's evaluator and gets back a value or a language error.
package kernel
