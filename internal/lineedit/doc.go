// Package lineedit is the shoal REPL's line editor: the glue between
// github.com/reeflective/readline and the language. It highlights the
// buffer from the lexer as it is typed (internal/highlight), completes
// through internal/complete without ever deleting what was typed (a menu
// when candidates diverge), continues the buffer on Enter while the
// parser says the statement is incomplete, so a multi-line entry is edited,
// kept and recalled whole, treats a bracketed paste as one input, and
// keeps a bounded, private history file in a format that holds each entry
// whole (reading the older one-line-per-entry format too). Its options are
// a plain struct the user config fills in. It opens its history file and
// nothing else; the readline library owns the terminal while a line is
// read.
package lineedit
