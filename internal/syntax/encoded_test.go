package syntax

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzEncodeProgram checks what EncodedProgram promises its holders (the
// journal records it without re-validating): every tree the parser
// returns encodes to well-formed JSON, and a tree past the limit gives
// no EncodedProgram at all.
func FuzzEncodeProgram(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, src string) {
		prog, err := Parse(src, ParseOptions{})
		if err != nil {
			return
		}
		enc, err := EncodeProgram(prog, 0)
		if err != nil {
			t.Fatalf("encode %q: %v", src, err)
		}
		if !json.Valid(enc.Bytes()) || !enc.Same(enc.Bytes()) {
			t.Fatalf("encoding of %q is not JSON: %s", src, enc.Bytes())
		}
		small, err := EncodeProgram(prog, len(enc.Bytes())-1)
		if !errors.Is(err, ErrTooLarge) || small.Bytes() != nil {
			t.Fatalf("encode %q under its size: %v, %d bytes", src, err, len(small.Bytes()))
		}
	})
}

func TestEncodedProgramSame(t *testing.T) {
	prog, err := Parse("1 + 1", ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeProgram(prog, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !enc.Same(enc.Bytes()) {
		t.Fatal("an encoding is not the same as its own bytes")
	}
	if enc.Same(append([]byte(nil), enc.Bytes()...)) || enc.Same(enc.Bytes()[:1]) || (EncodedProgram{}).Same(nil) {
		t.Fatal("a copy, a prefix or nothing counts as the encoder's bytes")
	}
}
