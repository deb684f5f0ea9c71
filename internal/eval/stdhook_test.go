package eval

// ownRegistry is eval's own registry (Parts): the entries this package
// defines, which tests that enumerate them (gate coverage, help) walk.
var ownRegistry = testRegistry

// UseStdRegistry makes r, the standard registry, the one in-package test
// sessions run on (testRegistry). This package cannot import
// internal/stdlib (it imports eval), so its external test file
// stdhook_ext_test.go passes it in at initialisation, before any test
// runs: eval's tests of the journal, undo, plans and flags run the file
// system commands (internal/lib/fs) as every embedder does.
func UseStdRegistry(r *Registry) { testRegistry = r }
