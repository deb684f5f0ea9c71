// Package conformance runs Shoal's language conformance corpus — the
// shared `*.toml` case files — against the evaluator and reports how much
// of it passes.
//
// The package's non-test code is evaluator-agnostic: it loads cases,
// prepares a case's working directory, runs one case through an Eval
// function with a timeout and panic recovery, and judges the outcome. The
// test in conformance_test.go binds it to internal/eval and adds the
// ratchet (testdata/passing.txt); see docs/conformance.md.
package conformance
