package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
)

// An AST set with SetAST is recorded as the encoder wrote it; bytes put
// in its place afterwards are checked as any hand-set AST is.
func TestSetAST(t *testing.T) {
	d := openTemp(t)
	prog, err := syntax.Parse("let x = [1, 2]; x.len()", syntax.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := syntax.EncodeProgram(prog, MaxASTBytes)
	if err != nil {
		t.Fatal(err)
	}
	e := Entry{Session: "s", Principal: "p", Src: "let x = [1, 2]; x.len()"}
	e.SetAST(enc)
	id, err := d.Record(&e)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.AST, enc.Bytes()) || !json.Valid(got.AST) {
		t.Fatalf("AST read back %q, want %q", got.AST, enc.Bytes())
	}

	// Replaced after SetAST: no longer the encoder's bytes.
	bad := Entry{Session: "s", Principal: "p"}
	bad.SetAST(enc)
	bad.AST = json.RawMessage(`{not json`)
	if _, err := d.Record(&bad); !errors.Is(err, ErrBadEntry) {
		t.Fatalf("replaced AST: %v, want ErrBadEntry", err)
	}
	// A copy of the same bytes is not the encoder's either, and is checked.
	cp := Entry{Session: "s", Principal: "p"}
	cp.SetAST(enc)
	cp.AST = append(json.RawMessage(nil), enc.Bytes()...)
	if _, err := d.Record(&cp); err != nil {
		t.Fatalf("a valid copy: %v", err)
	}
}
