package userconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadSkippingLeavesOutOnlyTheBadLayer: a file that cannot be used is
// a problem naming file:line:col, and only its layer is left out.
func TestLoadSkippingLeavesOutOnlyTheBadLayer(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "shoal")
	os.MkdirAll(cfg, 0o755)
	write := func(name, s string) { os.WriteFile(filepath.Join(cfg, name), []byte(s), 0o644) }
	envs := map[string]string{"XDG_CONFIG_HOME": dir}
	env := Env{Getenv: func(k string) string { return envs[k] }}

	write(MainFile, "[history]\nmax_entries = 7\n")
	write(PromptFile, "[format\n")
	l := LoadSkipping(env)
	if len(l.Problems) != 1 || !strings.HasSuffix(l.Problems[0].File, PromptFile) || l.Problems[0].Line != 1 {
		t.Fatalf("problems %v", l.Problems)
	}
	if l.Config.History.MaxEntries != 7 || l.Config.Prompt.Format.Left != DefaultPromptLeft {
		t.Errorf("the good layer was lost: %+v", l.Config.History)
	}
	if _, err := Load(env); err == nil {
		t.Errorf("Load is strict: no error")
	}

	write(MainFile, "[history]\nmax_entries = true\n")
	write(PromptFile, "[format]\nleft = \"P> \"\n")
	envs["SHOAL_HISTORY_MAX_ENTRIES"] = "lots"
	envs["NO_COLOR"] = "1"
	l = LoadSkipping(env)
	if len(l.Problems) != 2 || l.Problems[0].Line != 2 || l.Problems[0].Col != 15 ||
		!strings.Contains(l.Problems[0].Msg, "expected an integer, found boolean") ||
		!strings.Contains(l.Problems[1].Error(), "SHOAL_HISTORY_MAX_ENTRIES") {
		t.Fatalf("problems %v", l.Problems)
	}
	if l.Config.Prompt.Format.Left != "P> " || l.Config.History.MaxEntries != Default().History.MaxEntries || l.Config.Render.Color {
		t.Errorf("config %+v %+v color %v", l.Config.Prompt.Format, l.Config.History, l.Config.Render.Color)
	}
}

func TestLocate(t *testing.T) {
	if e := Locate("f", []byte("a = 1\n[b\n")); e == nil || e.Line != 2 {
		t.Errorf("syntax: %v", e)
	}
	if e := Locate("f", []byte("\nversion = 2\n")); e == nil || e.Line != 2 || e.Key != "version" {
		t.Errorf("version: %v", e)
	}
	if e := Locate("f", []byte("version = 1\nanything = \"goes\"\n")); e != nil {
		t.Errorf("well formed: %v", e)
	}
}
