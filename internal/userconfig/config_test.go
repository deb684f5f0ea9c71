package userconfig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultIsValid(t *testing.T) {
	if err := validate(Default(), "default", nil); err != nil {
		t.Fatalf("the defaults do not validate: %v", err)
	}
}

func TestParseReadsTheDocumentedKeys(t *testing.T) {
	src := `version = 1

[history]
enabled = true
max_entries = 20000
dedup = true
ignore_space = true
ignore = ["token *", "secret *"]

[render]
color = false
paging = "head"
head_rows = 12
pager = "less -R"
time_precision = "millisecond"

[editor]
mode = "vi"
bracketed_paste = false
keybindings = { "\\C-t" = "transpose-chars" }

[completion]
max_results = 50

[colors]
keyword = "#ff8800 bold"

[aliases]
gs = "git status"

[env]
EDITOR = "nvim"

[init]
files = ["~/.config/shoal/interactive.shl"]

[prompt.format]
left = "$directory$character"
`
	c, ws, err := Parse("shoal.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 0 {
		t.Errorf("warnings for documented keys: %v", ws)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"history.max_entries", c.History.MaxEntries, 20000},
		{"history.ignore", strings.Join(c.History.Ignore, "|"), "token *|secret *"},
		{"render.color", c.Render.Color, false},
		{"render.paging", c.Render.Paging, PagingHead},
		{"render.head_rows", c.Render.HeadRows, 12},
		{"render.time_precision", c.Render.TimePrecision, PrecisionMilli},
		{"editor.mode", c.Editor.Mode, ModeVi},
		{"editor.bracketed_paste", c.Editor.BracketedPaste, false},
		{"editor.keybindings", c.Editor.Keybindings[`\C-t`], "transpose-chars"},
		{"editor.highlight (default kept)", c.Editor.Highlight, true},
		{"completion.max_results", c.Completion.MaxResults, 50},
		{"colors.keyword", c.Colors.Keyword, "#ff8800 bold"},
		{"colors.string (default kept)", c.Colors.String, "green"},
		{"aliases.gs", c.Aliases["gs"], "git status"},
		{"env.EDITOR", c.Env["EDITOR"], "nvim"},
		{"init.files", len(c.Init.Files), 1},
		{"prompt.format.left", c.Prompt.Format.Left, "$directory$character"},
		{"prompt.format.continuation (default kept)", c.Prompt.Format.Continuation, "... "},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestParseErrorsCarryLineAndColumn(t *testing.T) {
	cases := []struct {
		name, src string
		line, col int
		key, msg  string
	}{
		{"syntax", "[history]\nmax_entries = = 3\n", 2, 0, "", ""},
		{"wrong type", "[history]\nenabled = true\nmax_entries = \"lots\"\n", 3, 15, "history.max_entries", ""},
		{"version", "version = 2\n", 1, 1, "version", "unsupported config version 2 (expected 1)"},
		{"max_entries zero", "[history]\n\nmax_entries = 0\n", 3, 1, "history.max_entries", "must be greater than 0"},
		{"editor mode", "[editor]\nmode = \"nano\"\n", 2, 1, "editor.mode", "must be `emacs` or `vi`"},
		{"paging", "render.paging = \"sometimes\"\n", 1, 1, "render.paging", "must be `auto`, `head` or `never`"},
		{"alias whitespace", "[aliases]\n\"g s\" = \"git status\"\n", 1, 2, "aliases", "alias name `g s` must not contain whitespace"},
		{"bad colour", "[colors]\nstring = \"greenish\"\n", 2, 1, "colors.string", "unknown colour or attribute"},
		{"prompt control char", "[prompt.format]\nleft = \"a\\u001b[31m\"\n", 2, 1, "prompt.format.left", "control characters"},
		{"nested wrong type", "[prompt.module.directory]\ntruncate_to = \"x\"\n", 2, 15, "prompt.module.directory.truncate_to", "expected an integer, found string"},
		{"bad precision", "[render]\ntime_precision = \"ps\"\n", 2, 1, "render.time_precision", "must be `second`"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Parse("/cfg/shoal.toml", []byte(c.src))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse error = %v (%T), want *Error", err, err)
			}
			if e.Line != c.line || (c.col != 0 && e.Col != c.col) || e.Line == 0 || e.Col == 0 {
				t.Errorf("position %d:%d, want %d:%d (%v)", e.Line, e.Col, c.line, c.col, e)
			}
			if e.Key != c.key {
				t.Errorf("key %q, want %q (%v)", e.Key, c.key, e)
			}
			if !strings.Contains(e.Msg, c.msg) {
				t.Errorf("message %q, want it to hold %q", e.Msg, c.msg)
			}
			if !strings.HasPrefix(e.Error(), "/cfg/shoal.toml:") {
				t.Errorf("error %q does not start with the file", e.Error())
			}
		})
	}
}

func TestUnknownKeysAreWarningsWithSuggestions(t *testing.T) {
	src := "[editor]\nbracketde_paste = false\nmode = \"vi\"\n\n[render]\nzzzzzz = 1\n"
	c, ws, err := Parse("shoal.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if c.Editor.Mode != ModeVi {
		t.Errorf("a known key beside an unknown one was not decoded: mode %q", c.Editor.Mode)
	}
	if !c.Editor.BracketedPaste {
		t.Errorf("the misspelt key changed bracketed_paste")
	}
	if len(ws) != 2 {
		t.Fatalf("warnings %v, want 2", ws)
	}
	if ws[0].Key != "editor.bracketde_paste" || ws[0].Suggest != "editor.bracketed_paste" || ws[0].Line != 2 {
		t.Errorf("first warning %+v", ws[0])
	}
	if got := ws[0].String(); !strings.Contains(got, "did you mean `editor.bracketed_paste`?") {
		t.Errorf("warning text %q", got)
	}
	if ws[1].Key != "render.zzzzzz" || ws[1].Suggest != "" {
		t.Errorf("second warning %+v: no suggestion should be invented", ws[1])
	}
}

func TestParsePromptRoot(t *testing.T) {
	p, ws, err := ParsePrompt("prompt.toml", []byte("[format]\nleft = \"$directory> \"\n[module.directory]\ntruncate_to = 2\n[module.bogus]\nx = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Format.Left != "$directory> " || p.Module.Directory.TruncateTo != 2 {
		t.Errorf("prompt %+v", p.Format)
	}
	if p.Module.Directory.HomeSymbol != "~" {
		t.Errorf("default home symbol lost: %q", p.Module.Directory.HomeSymbol)
	}
	if len(ws) != 1 || ws[0].Key != "module.bogus" {
		t.Errorf("warnings %v, want module.bogus", ws)
	}
}

func TestLoadLayersAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	cfgDir := filepath.Join(dir, "shoal")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(cfgDir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(MainFile, "[prompt.format]\nleft = \"main\"\ncontinuation = \"main-cont\"\n[history]\nmax_entries = 7\n")
	write(PromptFile, "[format]\nleft = \"from-prompt-toml\"\n")
	envs := map[string]string{"XDG_CONFIG_HOME": dir, "NO_COLOR": "1", "SHOAL_EDITOR_MODE": "vi"}
	l, err := Load(Env{Getenv: func(k string) string { return envs[k] }, Home: "/nonexistent"})
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if c.Prompt.Format.Left != "from-prompt-toml" || c.Prompt.Format.Continuation != "main-cont" {
		t.Errorf("prompt layers: %+v", c.Prompt.Format)
	}
	if c.History.MaxEntries != 7 || c.Render.Color || c.Editor.Mode != ModeVi {
		t.Errorf("history %d color %v mode %q", c.History.MaxEntries, c.Render.Color, c.Editor.Mode)
	}
	if len(l.Sources) != 2 {
		t.Errorf("sources %v", l.Sources)
	}

	envs["SHOAL_HISTORY_MAX_ENTRIES"] = "many"
	if _, err := Load(Env{Getenv: func(k string) string { return envs[k] }}); err == nil || !strings.Contains(err.Error(), "SHOAL_HISTORY_MAX_ENTRIES") {
		t.Errorf("bad environment value: %v", err)
	}
	delete(envs, "SHOAL_HISTORY_MAX_ENTRIES")

	write(MainFile, "[history]\nmax_entries = -1\n")
	_, err = Load(Env{Getenv: func(k string) string { return envs[k] }})
	var e *Error
	if !errors.As(err, &e) || e.Line != 2 || !strings.HasSuffix(e.File, MainFile) {
		t.Errorf("bad file: %v", err)
	}
}

func TestLoadMissingDirectoryIsDefaults(t *testing.T) {
	home := t.TempDir()
	l, err := Load(Env{Getenv: func(string) string { return "" }, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if l.Config.History.MaxEntries != Default().History.MaxEntries || len(l.Sources) != 0 {
		t.Errorf("no files should mean the defaults: %+v", l)
	}
	if got, want := Dir(Env{Getenv: func(string) string { return "relative" }, Home: home}), filepath.Join(home, ".config", "shoal"); got != want {
		t.Errorf("Dir with a relative XDG_CONFIG_HOME = %q, want %q", got, want)
	}
}

func TestLoadRefusesHugeAndNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	cfgDir := filepath.Join(dir, "shoal")
	if err := os.MkdirAll(filepath.Join(cfgDir, MainFile), 0o755); err != nil { // a directory
		t.Fatal(err)
	}
	env := Env{Getenv: func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	}}
	if _, err := Load(env); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory as config: %v", err)
	}
	if _, _, err := Parse("big", make([]byte, MaxFileBytes+1)); err == nil {
		t.Errorf("an oversized document was accepted")
	}
}

func TestParseStyle(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"none", ""},
		{"red", "\x1b[31m"},
		{"bold green", "\x1b[1;32m"},
		{"bright_blue", "\x1b[94m"},
		{"208", "\x1b[38;5;208m"},
		{"#ff8800", "\x1b[38;2;255;136;0m"},
		{"white on red", "\x1b[37;41m"},
		{"ok", "\x1b[1;32m"}, // palette
	}
	pal := map[string]string{"ok": "bold green"}
	for _, c := range cases {
		s, err := ParseStyle(c.in, pal)
		if err != nil {
			t.Errorf("ParseStyle(%q): %v", c.in, err)
			continue
		}
		if s.SGR() != c.want {
			t.Errorf("ParseStyle(%q) = %q, want %q", c.in, s.SGR(), c.want)
		}
	}
	for _, bad := range []string{"reddish", "on", "256", "#12345", "#gggggg", strings.Repeat("bold ", 20)} {
		if _, err := ParseStyle(bad, nil); err == nil {
			t.Errorf("ParseStyle(%q) accepted", bad)
		}
	}
	if got := (Style{}).Paint("x"); got != "x" {
		t.Errorf("no style painted %q", got)
	}
}
