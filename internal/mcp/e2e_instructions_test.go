package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestE2EInstructionsFormsRun: every Shoal form the server instructions
// quote (between backticks) runs through shoal_exec in one session, in a
// directory with the files they name: none is a parse error or names
// something the language lacks; the only failures allowed are programs
// that exit non-zero (git outside a repository). Shell idioms Shoal
// rejects appear in no tool description or instruction as advice.
func TestE2EInstructionsFormsRun(t *testing.T) {
	k := startKernel(t)
	for name, body := range map[string]string{"notes.txt": "b\na\n", "a.md": "# a\n"} {
		if err := os.WriteFile(filepath.Join(k.dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := connect(t, k)
	ins := s.cs.InitializeResult().Instructions
	forms := regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(ins, -1)
	if len(forms) < 12 {
		t.Fatalf("the instructions quote %d forms:\n%s", len(forms), ins)
	}
	for _, f := range forms {
		src := f[1]
		res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": src})
		if !res.IsError {
			continue
		}
		var e toolErr
		structured(t, res, &e)
		var data struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(e.Data, &data)
		if e.Code == -32002 && data.Code == "cmd_failed" {
			continue
		}
		t.Errorf("the instructions' form %q: %s", src, text(res))
	}
	tl, err := s.cs.ListTools(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tl.Tools {
		if strings.Contains(tool.Description, "pipeline") {
			t.Errorf("%s's description offers pipelines: %s", tool.Name, tool.Description)
		}
	}
}
