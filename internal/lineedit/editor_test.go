package lineedit

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/highlight"
)

func testContext() complete.Context {
	fsys := fstest.MapFS{"w/my file.txt": {}, "w/my_notes": {}, "w/other": {}, "w/dir/x": {}}
	return complete.Context{
		Names:        func() []string { return []string{"xs", "name"} },
		Builtins:     func() []string { return []string{"echo", "exec", "ls", "let_me"} },
		PathCommands: func() []string { return []string{"git", "gitk", "gcc"} },
		Flags: func(h string) []string {
			if h == "ls" {
				return []string{"--all", "-a"}
			}
			return nil
		},
		Dir: "/w",
		ReadDir: func(d string) ([]fs.DirEntry, error) {
			return fs.ReadDir(fsys, strings.Trim(d, "/"))
		},
	}
}

// apply is what the readline library does with an answer: the prefix
// before the cursor replaced by the value.
func apply(src string, pos int, prefix, value string) string {
	return src[:pos-len(prefix)] + value + src[pos:]
}

// TestCandidatesNeverDeleteTypedText: whatever Tab offers, putting any
// candidate in place of the prefix keeps every byte typed before the
// cursor (issue 14: `ec` + Tab left an empty line, `[1,2].so` left
// `[1,2].`, `ls my` left `ls `).
func TestCandidatesNeverDeleteTypedText(t *testing.T) {
	cc := testContext()
	for _, tc := range []struct {
		src  string
		want string // one value it must offer ("" for none)
	}{
		{"ec", "echo"},
		{"gi", "git"},
		{"[1,2].so", "[1,2].sort"},
		{"[1,2].", "[1,2].sort"},
		{"xs.", "xs.len"},
		{"ls my", "ls my_notes"},
		{"ls ", "ls other"},
		{"ls --a", "ls --all"},
		{"gti", ""}, // a near match would replace what was typed: none
		{"", ""},    // a blank buffer offers nothing
		{"   ", ""},
		{"échelle.", ""},
		{"let y = x", "let y = xs"},
	} {
		pos := len(tc.src)
		cands := complete.Complete(tc.src, pos, cc)
		prefix, vals, ok := Candidates(tc.src, pos, cands)
		if !ok {
			if tc.want != "" {
				t.Errorf("%q: nothing offered, want %q", tc.src, tc.want)
			}
			continue
		}
		if prefix == "" || !strings.HasSuffix(tc.src[:pos], prefix) {
			t.Errorf("%q: prefix %q is not the text before the cursor", tc.src, prefix)
			continue
		}
		found := tc.want == ""
		for _, v := range vals {
			if !strings.HasPrefix(v.Value, prefix) {
				t.Errorf("%q: value %q does not start with the prefix %q (the library would drop or erase it)", tc.src, v.Value, prefix)
			}
			got := apply(tc.src, pos, prefix, v.Value)
			if !strings.HasPrefix(got, tc.src[:pos]) {
				t.Errorf("%q: candidate %q turns the line into %q, deleting typed text", tc.src, v.Value, got)
			}
			if got == tc.want {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: no candidate gives %q", tc.src, tc.want)
		}
	}
}

func TestCandidatesGroups(t *testing.T) {
	cc := testContext()
	_, vals, ok := Candidates("e", 1, complete.Complete("e", 1, cc))
	if !ok {
		t.Fatal("nothing for e")
	}
	tags := map[string]string{}
	for _, v := range vals {
		tags[v.Display] = v.Tag
	}
	if tags["echo"] != "builtins" {
		t.Errorf("echo in group %q", tags["echo"])
	}
	_, vals, _ = Candidates("g", 1, complete.Complete("g", 1, cc))
	for _, v := range vals {
		if v.Display == "git" && v.Tag != "commands" {
			t.Errorf("git in group %q", v.Tag)
		}
	}
}

func TestContinuePromptFitsThePrompt(t *testing.T) {
	e := &Editor{opts: DefaultOptions()}
	for _, tc := range []struct{ prompt, want string }{
		{"shoal> ", "  ...> "},
		{"\x1b[1;34m~/src\x1b[0m > ", "   ...> "},
		{"line one\n$ ", ""},
		{"ab> ", ""}, // too narrow for it
	} {
		e.prompt = tc.prompt
		if got := e.continuePrompt(); got != tc.want {
			t.Errorf("prompt %q: continuation %q, want %q", tc.prompt, got, tc.want)
		}
	}
}

func TestPasteEndingInANewlineIsEntered(t *testing.T) {
	e := New(Options{HistorySize: 10, Color: true, Theme: &highlight.Default}, Hooks{})
	if got := e.paste("[3,1,2]\n  .sort()"); got != "[3,1,2]\n  .sort()" {
		t.Fatalf("paste kept %q", got)
	}
	if got := e.paste("ls\n\n"); got != "ls" {
		t.Fatalf("paste with trailing newlines kept %q", got)
	}
}

func TestOptionsReachTheLibrary(t *testing.T) {
	opts := DefaultOptions()
	e := New(opts, Hooks{Complete: func(string, int) []complete.Candidate { return nil }})
	if e.rl.SyntaxHighlighter == nil || e.rl.Completer == nil || e.rl.AcceptMultiline == nil || e.rl.PasteTransformer == nil {
		t.Fatal("a default editor lacks a hook")
	}
	for name, want := range map[string]any{
		"editing-mode": "emacs", "history-autosuggest": true, "enable-bracketed-paste": true,
		"cursor-position-probe": false, "menu-complete-display-prefix": true,
	} {
		if got := e.rl.Config.Get(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	opts.Keymap, opts.Color, opts.Autosuggest = "vi", false, false
	e = New(opts, Hooks{})
	if e.rl.Completer != nil {
		t.Error("no completion hook, yet a completer")
	}
	// Colour off: the buffer is drawn as typed (continuation prompts
	// aside), with no escape.
	if got := e.render([]rune("ls -a")); got != "ls -a" {
		t.Errorf("colour off, yet rendered %q", got)
	}
	if e.rl.Config.GetString("editing-mode") != "vi" || string(e.rl.Keymap.Main()) != "vi-insert" {
		t.Errorf("vi keymap: mode %q, main %q", e.rl.Config.GetString("editing-mode"), e.rl.Keymap.Main())
	}
	if e.rl.Config.GetBool("history-autosuggest") {
		t.Error("autosuggestions off, yet on")
	}
	// Enter accepts unless the hook says the statement is incomplete.
	e = New(DefaultOptions(), Hooks{Incomplete: func(src string) bool { return strings.HasSuffix(src, "{") }})
	if e.acceptMultiline([]rune("fn f() {")) || !e.acceptMultiline([]rune("1 + 1")) {
		t.Error("acceptMultiline does not follow the Incomplete hook")
	}
}

func TestKeybindingsAndProblems(t *testing.T) {
	opts := DefaultOptions()
	opts.HistoryPath = t.TempDir() // a directory: the history is kept in memory
	opts.Keybindings = map[string]string{`\C-t`: "forward-word", `\C-y`: "no-such-command", "": "forward-word"}
	e := New(opts, Hooks{})
	if b := e.rl.Config.Binds["emacs"]["\x14"]; b.Action != "forward-word" {
		t.Errorf(`\C-t bound to %q`, b.Action)
	}
	if b := e.rl.Config.Binds["emacs"]["\x19"]; b.Action == "no-such-command" {
		t.Error("an unknown command was bound")
	}
	var msgs []string
	for _, p := range e.Problems() {
		msgs = append(msgs, p.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"history kept in memory", `no editor command "no-such-command"`, "not a key sequence"} {
		if !strings.Contains(all, want) {
			t.Errorf("problems %q lack %q", all, want)
		}
	}
	opts = DefaultOptions()
	opts.BracketedPaste = false
	if New(opts, Hooks{}).rl.Config.GetBool("enable-bracketed-paste") {
		t.Error("bracketed paste on, though off in the options")
	}
}

// FuzzCandidatesNeverDelete: for any line and cursor, every value offered
// keeps the text before the cursor when put in place of the prefix.
func FuzzCandidatesNeverDelete(f *testing.F) {
	for _, s := range []string{"ec", "[1,2].so", "ls my", "xs.", "ls --a", "let y = x", "é.", "a b.c(d", "~/", "./"} {
		f.Add(s, len(s))
	}
	cc := testContext()
	f.Fuzz(func(t *testing.T, src string, pos int) {
		if pos < 0 || pos > len(src) {
			return
		}
		prefix, vals, ok := Candidates(src, pos, complete.Complete(src, pos, cc))
		if !ok {
			return
		}
		if !strings.HasSuffix(src[:pos], prefix) || prefix == "" || !ascii(prefix) {
			t.Fatalf("%q@%d: prefix %q", src, pos, prefix)
		}
		for _, v := range vals {
			if !strings.HasPrefix(v.Value, prefix) {
				t.Fatalf("%q@%d: value %q lacks prefix %q", src, pos, v.Value, prefix)
			}
			if got := apply(src, pos, prefix, v.Value); !strings.HasPrefix(got, src[:pos]) {
				t.Fatalf("%q@%d: %q deletes typed text: %q", src, pos, v.Value, got)
			}
		}
	})
}

// TestContinuationLinesLookAsDocumented: every line of a multi-line buffer
// after the first starts with the continuation prompt, padded to the
// prompt's width so the text lines up; an unknown command head is
// coloured as an error.
func TestContinuationLinesLookAsDocumented(t *testing.T) {
	opts := DefaultOptions()
	opts.Color = false
	opts.ContinuePrompt = "... "
	e := New(opts, Hooks{})
	e.prompt = "shoal> "
	got := e.render([]rune("if true {\n  1\n}"))
	want := "if true {\n\r   ... " + "  1\n\r   ... }"
	if got != want {
		t.Errorf("render = %q, want %q", got, want)
	}
	opts.Color = true
	e = New(opts, Hooks{KnownCommand: func(n string) bool { return n == "ls" }})
	if got := e.render([]rune("frob x")); !strings.HasPrefix(got, "\x1b[31mfrob") {
		t.Errorf("unknown head rendered %q, want it red", got)
	}
	if got := e.render([]rune("ls x")); strings.HasPrefix(got, "\x1b[31m") {
		t.Errorf("known head rendered %q as an error", got)
	}
}
