// Package adapters is Shoal's catalog of command adapters: declarative
// TOML data files that give a known command-line program typed flags,
// argument validation before the program starts, effect declarations that
// plan derivation uses, accepted exit statuses and a parser that turns its
// stdout into a value.
//
// An adapter never stands between a person and their program: a call
// whose words the declaration does not model (an undeclared flag, a form
// it does not know) passes through, the program running with the words as
// written and its output left raw (Bound.Pass); only a mistyped value of
// a declared parameter is refused.
//
// The package is pure: it decodes catalog files from an fs.FS (the bundled
// set is embedded; a user directory is opened by the caller), binds a
// call's evaluated words to a command's declaration (Bind), substitutes
// bound arguments into effect templates (Effects) and parses captured
// stdout (ParseOutput). Running the program is the evaluator's, through
// the host.
package adapters
