package syntax

// EncodedProgram is a program's JSON form as this package's encoder wrote
// it (AppendProgram). Only EncodeProgram makes one, so whoever holds it
// knows its bytes are well-formed JSON without checking them again; the
// journal uses that to skip re-validating the AST the kernel records.
type EncodedProgram struct{ b []byte }

// EncodeProgram is AppendProgram(nil, p, limit), its result marked as the
// encoder's own.
func EncodeProgram(p *Program, limit int) (EncodedProgram, error) {
	// A short program's JSON fits the first buffer, made once rather
	// than grown from nothing a few bytes at a time.
	size := encodeFirstBuffer
	if limit > 0 {
		size = min(size, limit)
	}
	b, err := AppendProgram(make([]byte, 0, size), p, limit)
	if err != nil {
		return EncodedProgram{}, err
	}
	return EncodedProgram{b: b}, nil
}

// Bytes is the JSON; nil for the zero EncodedProgram. The slice is shared
// with the value and must not be modified.
func (e EncodedProgram) Bytes() []byte { return e.b }

// Same reports whether b is exactly e's bytes (the same memory, not a copy
// with the same contents): a holder that let b be replaced since can tell.
func (e EncodedProgram) Same(b []byte) bool {
	return len(b) > 0 && len(b) == len(e.b) && &b[0] == &e.b[0]
}

// encodeFirstBuffer is the capacity EncodeProgram starts with: the JSON
// of a one-line expression such as `1 + 1` is a few hundred bytes.
const encodeFirstBuffer = 512
