// Package complete computes completion candidates for the kernel's
// `complete` method and the REPL: given source text and a cursor (a UTF-8
// byte offset), it classifies the cursor position lexically — a statement
// head, a method after `.`, a command argument or path, the inside of a
// string or comment — and offers names from a Context, each with the byte
// span it replaces.
//
// The package never touches the operating system: directory listings come
// through Context.ReadDir, which the kernel routes through the host gate.
package complete
