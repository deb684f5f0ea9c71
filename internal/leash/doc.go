// Package leash derives, without running anything, what a Shoal program
// will do to the world: a Plan of concrete effects (files read, written and
// deleted, programs spawned, environment names read and written, clock and
// system observations), the plan's reversibility, and whether some part of
// it could not be bounded statically (Opaque).
//
// Derivation is conservative: whatever cannot be known from the AST and the
// Env (a command head computed at run time, a closure from the session, a
// sourced file) becomes a Dynamic effect and marks the plan Opaque, rather
// than a precise-looking plan that omits something. What each builtin,
// method and namespace member does is not listed here: the registry in
// Env.Registry (eval.Registry) holds each entry's effect declaration
// (written against Deriver) and flags; a head it does not hold is an
// external program (without a registry, every head is). leash holds no
// package state: a plan depends on the program and the Env alone. Node
// kinds derivation does not name are opaque, never skipped. Policy evaluation sits
// on top of Plan; the host gate checks every concrete effect again while the
// program runs.
package leash
