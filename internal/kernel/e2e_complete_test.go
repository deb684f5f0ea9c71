package kernel_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

type candidate struct {
	Label   string `json:"label"`
	Kind    string `json:"kind"`
	Replace struct {
		Start int `json:"start"`
		End   int `json:"end"`
	} `json:"replace"`
}

func completions(t *testing.T, c *client.Client, src string, cursor ...int) map[string]candidate {
	t.Helper()
	params := map[string]any{"src": src}
	if len(cursor) > 0 {
		params["cursor"] = cursor[0]
	}
	var res struct {
		Candidates []candidate `json:"candidates"`
	}
	if err := c.Call(testCtx(t), "complete", params, &res); err != nil {
		t.Fatalf("complete %q: %v", src, err)
	}
	if res.Candidates == nil {
		t.Fatalf("complete %q: candidates is null", src)
	}
	out := map[string]candidate{}
	for _, cd := range res.Candidates {
		out[cd.Label] = cd
	}
	return out
}

func wantCandidate(t *testing.T, got map[string]candidate, label, kind string) {
	t.Helper()
	c, ok := got[label]
	if !ok {
		t.Errorf("no candidate %q among %d", label, len(got))
		return
	}
	if c.Kind != kind {
		t.Errorf("candidate %q has kind %q, want %q", label, c.Kind, kind)
	}
}

func TestE2ECompleteBeforeAndAfterAttach(t *testing.T) {
	k := newE2E(t)
	if err := os.WriteFile(filepath.Join(k.dir, "alpha.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := k.dial(t)
	// Before attach: the language only.
	wantCandidate(t, completions(t, c, "whi"), "while", "keyword")
	wantCandidate(t, completions(t, c, "l"), "ls", "builtin")
	wantCandidate(t, completions(t, c, "js"), "json", "namespace")
	wantCandidate(t, completions(t, c, "o"), "os", "namespace")
	got := completions(t, c, `"abc".up`)
	wantCandidate(t, got, "upper", "method")
	if r := got["upper"].Replace; r.Start != 6 || r.End != 8 {
		t.Errorf("replace span %+v, want 6..8", r)
	}
	if got := completions(t, c, "cat al"); len(got) != 0 {
		t.Errorf("paths offered before attach: %v", got)
	}
	if got := completions(t, c, "# my comment"); len(got) != 0 {
		t.Errorf("candidates inside a comment: %v", got)
	}

	// After attach: the session's names, functions, aliases and paths.
	if _, err := c.Attach(testCtx(t), client.AttachParams{Session: "comp"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(testCtx(t), client.ExecParams{Src: "let my_value = 1\nfn my_fn() { 2 }\nalias my_ls = ls -a\nlet p = path(\"a/b.txt\")"}); err != nil {
		t.Fatal(err)
	}
	got = completions(t, c, "my_")
	wantCandidate(t, got, "my_value", "variable")
	wantCandidate(t, got, "my_fn", "function")
	if _, ok := got["my_ls"]; !ok {
		t.Errorf("alias not offered: %v", got)
	}
	wantCandidate(t, completions(t, c, "cat al"), "alpha.txt", "path")
	// An adapted command's first argument: its adapter's subcommands.
	got = completions(t, c, "git sta")
	wantCandidate(t, got, "status", "command")
	wantCandidate(t, got, "stash", "command")
	if r := got["status"].Replace; r.Start != 4 || r.End != 7 {
		t.Errorf("subcommand replace span %+v, want 4..7", r)
	}
	// Path methods live in the evaluator; the os namespace too.
	wantCandidate(t, completions(t, c, "p.ste"), "stem", "method")
	if got := completions(t, c, "os.pla"); len(got) == 0 {
		t.Error("os namespace members not offered")
	}
	// The cursor may sit before the end; past the end it is clamped.
	wantCandidate(t, completions(t, c, "my_v + 1", 4), "my_value", "variable")
	wantCandidate(t, completions(t, c, "my_v", 99), "my_value", "variable")
}

func TestE2EExplain(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	c := k.dial(t)
	wantCode(t, "explain before attach", c.Call(ctx, "explain", map[string]any{"src": "1"}, nil), proto.CodeNotAttached)
	if _, err := c.Attach(ctx, client.AttachParams{Session: "ex"}); err != nil {
		t.Fatal(err)
	}
	type effect struct {
		Kind string `json:"kind"`
		Path string `json:"path"`
	}
	var res struct {
		ASTVersion    int      `json:"ast_version"`
		AST           any      `json:"ast"`
		Effects       []effect `json:"effects"`
		Reversibility string   `json:"reversibility"`
		Opaque        bool     `json:"opaque"`
		Fingerprint   string   `json:"fingerprint"`
		PlanRef       *string  `json:"plan_ref"`
	}
	if err := c.Call(ctx, "explain", map[string]any{"src": "rm ./scratch.txt", "ast": map[string]any{"stmts": []any{}}}, &res); err != nil {
		t.Fatal(err)
	}
	if res.ASTVersion != 2 || res.AST == nil || res.PlanRef == nil || *res.PlanRef != res.Fingerprint || !strings.HasPrefix(res.Fingerprint, "fp:") {
		t.Errorf("explain = %+v", res)
	}
	want := filepath.Join(k.dir, "scratch.txt")
	found := false
	for _, e := range res.Effects {
		found = found || e.Path == want
	}
	if !found || res.Reversibility == "reversible" || res.Reversibility == "" {
		t.Errorf("rm effects %+v reversibility %q, want a change to %s", res.Effects, res.Reversibility, want)
	}
	// Explaining runs nothing and stores nothing.
	if err := os.WriteFile(want, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "explain", map[string]any{"src": "rm ./scratch.txt"}, &res); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(want); err != nil {
		t.Errorf("explain removed the file: %v", err)
	}
	for _, m := range []string{"plan.get", "plan.apply"} {
		wantCode(t, m+" of a fingerprint", c.Call(ctx, m, map[string]any{"plan_ref": res.Fingerprint}, nil), proto.CodeUnknownPlan)
	}
	var plans struct {
		Plans []any `json:"plans"`
	}
	if err := c.Call(ctx, "plan.list", nil, &plans); err != nil || plans.Plans == nil || len(plans.Plans) != 0 {
		t.Errorf("plan.list = %+v, %v", plans, err)
	}
	// Pure source has no effects.
	if err := c.Call(ctx, "explain", map[string]any{"src": "1 + 2"}, &res); err != nil || len(res.Effects) != 0 || res.Reversibility != "reversible" {
		t.Errorf("pure explain = %+v, %v", res, err)
	}
	wantCode(t, "neither src nor ast", c.Call(ctx, "explain", map[string]any{}, nil), proto.CodeInvalidParams)
	wantCode(t, "parse error", c.Call(ctx, "explain", map[string]any{"src": "let = ("}, nil), proto.CodeParseError)
}
