package kernel_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

type explainAnswer struct {
	AST           json.RawMessage `json:"ast"`
	Effects       json.RawMessage `json:"effects"`
	Reversibility string          `json:"reversibility"`
	Opaque        bool            `json:"opaque"`
	Fingerprint   string          `json:"fingerprint"`
}

// TestExplainFromAST checks that explaining the AST of a source gives the
// same canonical AST, effects, reversibility and opacity as explaining the
// source, and that a malformed AST is invalid params naming the problem.
func TestExplainFromAST(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	c := k.dial(t)
	if _, err := c.Attach(ctx, client.AttachParams{Session: "ast"}); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		"rm ./scratch.txt",
		"echo hi > ./out.txt",
		"cp ./a.txt ./b.txt; mkdir ./d",
		"let n = 1 + 2\nn * 3",
		"sh { rm -rf / }",
	} {
		var fromSrc, fromAST explainAnswer
		if err := c.Call(ctx, "explain", map[string]any{"src": src}, &fromSrc); err != nil {
			t.Fatalf("%q from src: %v", src, err)
		}
		if err := c.Call(ctx, "explain", map[string]any{"ast": fromSrc.AST}, &fromAST); err != nil {
			t.Fatalf("%q from ast: %v", src, err)
		}
		if !bytes.Equal(fromSrc.AST, fromAST.AST) {
			t.Errorf("%q: ast differs\nsrc: %s\nast: %s", src, fromSrc.AST, fromAST.AST)
		}
		if !bytes.Equal(fromSrc.Effects, fromAST.Effects) || fromSrc.Reversibility != fromAST.Reversibility || fromSrc.Opaque != fromAST.Opaque {
			t.Errorf("%q: from src %s %s opaque=%v, from ast %s %s opaque=%v", src,
				fromSrc.Effects, fromSrc.Reversibility, fromSrc.Opaque, fromAST.Effects, fromAST.Reversibility, fromAST.Opaque)
		}
		if !strings.HasPrefix(fromAST.Fingerprint, "fp:") {
			t.Errorf("%q: fingerprint %q", src, fromAST.Fingerprint)
		}
	}
	// The rm really is seen as an effect, so the comparison above is not
	// between two empty lists.
	var rm explainAnswer
	if err := c.Call(ctx, "explain", map[string]any{"src": "rm ./scratch.txt"}, &rm); err != nil {
		t.Fatal(err)
	}
	if string(rm.Effects) == "[]" || rm.Reversibility == "reversible" {
		t.Errorf("rm explained as %s %s", rm.Effects, rm.Reversibility)
	}

	bad := []struct {
		name, ast, reason string
	}{
		{"unknown kind", `{"stmts":[{"kind":"goto","span":{"start":0,"end":1}}]}`, `unknown statement kind "goto"`},
		{"bad span", `{"stmts":[{"kind":"break","span":{"start":2,"end":1}}]}`, "stmts[0].span"},
		{"not a program", `[1]`, "expected an object"},
		{"missing field", `{"stmts":[{"kind":"use","span":{"start":0,"end":1}}]}`, `missing field "path"`},
	}
	for _, b := range bad {
		err := c.Call(ctx, "explain", map[string]any{"ast": json.RawMessage(b.ast)}, nil)
		wantCode(t, b.name, err, proto.CodeInvalidParams)
		var data string
		if derr := client.ErrorData(err, &data); derr != nil || !strings.Contains(data, b.reason) {
			t.Errorf("%s: data %q (%v), want it to contain %q", b.name, data, derr, b.reason)
		}
	}
}
