// Package kernel is Shoal's long-lived JSON-RPC server: it listens on a
// Unix socket, checks each peer's uid, reads bounded frames, routes requests
// through one method table that says which methods need session.attach, and
// keeps sessions keyed by (principal, name), each with its own evaluator,
// transcript of addressable values (out:N), task registry and tool
// bindings.
//
// The kernel never evaluates source itself: it hands source and a context
// to a session's evaluator and gets back a value or a language error. It
// wires the dedicated packages together: events (scoped channels,
// per-subscriber queues that coalesce overflow), tasks (background execs
// owned by a session), complete (candidates from a snapshot of the
// session's bindings, never the live evaluator) and leash (explain's
// static effects and descriptive fingerprint).
//
// Stored plans and approval are plans.go and planstore.go (exec modes
// "plan" and "approved", plan.*, cap.request, approval events). The
// journal is journal.go: with a state directory, every exec and plan.apply
// writes a row of internal/journal and its outputs to internal/cas before
// it answers; journal.query, blob.get and the journal channel read them.
package kernel
