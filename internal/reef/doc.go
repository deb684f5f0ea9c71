// Package reef decides which executable a command name means in a scope:
// project manifests (`.reef.toml`, `mise.toml`, `.mise.toml`,
// `.tool-versions`) found walking up from the working directory, the
// user's `[reef]` table, and `with reef:` overrides; lenient version
// constraints refined across scopes (or a `reef_conflict`); providers that
// enumerate candidates (npm-local, venv, mise, cargo, system); and
// content-hashed `reef.lock` files.
//
// The package touches no operating system itself. Every file it reads and
// every version probe it runs goes through the FS and Prober its caller
// supplies (the evaluator passes its host gate), so a session's policy
// judges Reef's reads and spawns like any other.
package reef
