package syntax

// IsKeyword reports whether word is one of the language's reserved words
// (let, fn, if, in, true, ...), as the lexer reads them in expression mode.
func IsKeyword(word string) bool { return keywordKind(word) != tIdent }
