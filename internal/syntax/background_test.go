package syntax

import (
	"strings"
	"testing"
)

// TestBackgroundBlock: `{ … } &` ending a statement (or a let's value) is
// spawn { … }; an `&` that does not end the statement stays an error.
func TestBackgroundBlock(t *testing.T) {
	for _, src := range []string{"{ 1 } &", "{ sleep 1s; 2 } &\n3", "let j = { 1 } &", "{ 1 } &; 2", "if true { { 1 } & }"} {
		p, err := Parse(src, ParseOptions{})
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		js, err := MarshalProgram(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(js), `"kind":"spawn"`) {
			t.Errorf("%q: no spawn node in %s", src, js)
		}
		if x, ok := p.Stmts[len(p.Stmts)-1].(*ExprStmt); ok && src == "{ 1 } &" {
			sp, ok := x.X.(*Spawn)
			if !ok || src[sp.Span.Start:sp.Span.End] != "{ 1 } &" {
				t.Errorf("%q: top statement %T", src, x.X)
			}
		}
	}
	for _, src := range []string{"{ 1 } & 2", "let x = 1 & 2", "[1] &"} {
		if _, err := Parse(src, ParseOptions{}); err == nil || !strings.Contains(err.Error(), "`&`") {
			t.Errorf("%q: err %v, want the & error", src, err)
		}
	}
}
