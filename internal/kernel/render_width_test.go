package kernel

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestExecRenderFitsEightyColumns: a wide table's render is fitted to
// RenderWidth columns, with cut cells marked, while the value keeps every
// byte.
func TestExecRenderFitsEightyColumns(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	src := `[{name: "a", note: "` + strings.Repeat("word ", 40) + `", n: 1}, {name: "b", note: "short", n: 2}]`
	var res execResult
	c.ok("exec", map[string]any{"src": src}, &res)
	if !strings.Contains(res.Render, "…") {
		t.Fatalf("render was not cut:\n%s", res.Render)
	}
	for i, line := range strings.Split(res.Render, "\n") {
		if n := utf8.RuneCountInString(line); n > RenderWidth {
			t.Errorf("line %d has %d columns (> %d): %q", i, n, RenderWidth, line)
		}
	}
	if !strings.Contains(string(res.Value), strings.Repeat("word ", 40)) {
		t.Errorf("the wire value lost content: %.200s", res.Value)
	}
}
