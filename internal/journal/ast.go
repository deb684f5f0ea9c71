package journal

import "github.com/shoalgo/shoal/internal/syntax"

// SetAST records prog as the entry's AST. The bytes come from the syntax
// package's own encoder, so Begin and Record do not validate them again
// as they do an AST set by hand; setting AST to other bytes afterwards
// brings the check back.
func (e *Entry) SetAST(prog syntax.EncodedProgram) {
	e.AST = prog.Bytes()
	e.encodedAST = prog
}

// astEncoded reports whether e.AST is still the encoder's bytes SetAST gave it.
func (e *Entry) astEncoded() bool { return e.encodedAST.Same(e.AST) }
