package kernel_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/proto"
)

// jsonDepth is the deepest nesting of objects and arrays in raw.
func jsonDepth(raw []byte) int {
	depth, deepest, inStr := 0, 0, false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// TestDeepestTreeRoundTrips parses a source whose tree is exactly
// syntax.MaxDepth deep, with as many levels as the parser allows taking
// two JSON levels each (a list in a list): the Go client, which holds the
// kernel's frames to proto.MaxFrameDepth, receives the answer, and explain
// takes the AST back. One level deeper is PARSE_ERROR.
func TestDeepestTreeRoundTrips(t *testing.T) {
	k := newE2E(t)
	c := k.attached(t, "deep", "")
	ctx := testCtx(t)
	const lists = 480
	src := func(chain int) string {
		return strings.Repeat("[", lists) + "1" + strings.Repeat(" + 1", chain) + strings.Repeat("]", lists)
	}
	chain := syntax.MaxDepth - lists - 2 // the statement and the innermost literal
	res, err := c.Parse(ctx, src(chain))
	if err != nil {
		t.Fatalf("parse of a tree of MaxDepth: %v", err)
	}
	if d := jsonDepth(res.AST); d < 2*lists || d+2 > proto.MaxFrameDepth {
		t.Fatalf("AST JSON %d deep: want at least %d and within the frame bound %d", d, 2*lists, proto.MaxFrameDepth)
	}
	var ex struct {
		AST json.RawMessage `json:"ast"`
	}
	if err := c.Call(ctx, "explain", map[string]any{"ast": res.AST}, &ex); err != nil {
		t.Fatalf("explain of the deepest AST: %v", err)
	}
	if string(ex.AST) != string(res.AST) {
		t.Errorf("explain's canonical AST differs from parse's")
	}
	_, err = c.Parse(ctx, src(chain+1))
	if code, ok := client.ErrorCode(err); !ok || code != proto.CodeParseError || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("one level deeper: %v", err)
	}
}

// TestTreeDepthFitsFrames checks the bound that ties the two packages: the
// JSON of a tree of syntax.MaxDepth nests at most 2*MaxDepth+2 levels, and
// 2 more inside an answer or an explain request, which must stay within
// the frame depth bound both the kernel and the Go client hold frames to.
func TestTreeDepthFitsFrames(t *testing.T) {
	if need := 2*syntax.MaxDepth + 4; need > proto.MaxFrameDepth {
		t.Fatalf("a tree of syntax.MaxDepth needs %d JSON levels in a frame; proto.MaxFrameDepth is %d", need, proto.MaxFrameDepth)
	}
}
