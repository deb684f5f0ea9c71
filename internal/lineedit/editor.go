package lineedit

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/reeflective/readline"
	"github.com/reeflective/readline/inputrc"
	"golang.org/x/term"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/highlight"
)

// ErrInterrupted is returned by ReadLine when the user abandons the
// buffer (Ctrl-C).
var ErrInterrupted = errors.New("input interrupted")

// Options are the editor's settings: a plain struct the user config fills
// in (start from DefaultOptions).
type Options struct {
	// Keymap is "emacs" or "vi" (vi starts in insert mode).
	Keymap string
	// HistoryPath is the history file ("" keeps history in memory).
	HistoryPath string
	// HistorySize is how many entries the history keeps (0:
	// DefaultHistorySize; at most MaxHistorySize).
	HistorySize int
	// Color turns on highlighting as you type and coloured menus.
	Color bool
	// Theme colours the token classes (nil: highlight.Default).
	Theme *highlight.Theme
	// Autosuggest shows the newest history entry that starts with the
	// buffer, dimmed after the cursor (Right arrow or Ctrl-F takes it).
	Autosuggest bool
	// ContinuePrompt is shown before the continuation lines of a
	// multi-line buffer.
	ContinuePrompt string
	// BracketedPaste asks the terminal to mark pastes, so a paste is one
	// input (off: pasted line breaks are Enter presses).
	BracketedPaste bool
	// Keybindings bind key sequences, spelled as in inputrc (`\C-t`,
	// `\M-f`), to editor commands ("forward-word", ...) in the
	// keymap in use; they apply after the user's inputrc.
	Keybindings map[string]string
	// HistoryIgnoreSpace: an entry that starts with a space is not
	// recorded. HistoryIgnore: nor is one that matches a pattern as a
	// whole (`*`, `?`).
	HistoryIgnoreSpace bool
	HistoryIgnore      []string
	// HistoryDedup: an entry equal to the one before it is not recorded
	// again.
	HistoryDedup bool
	// RightPrompt, when set, is drawn at the right edge of the prompt's
	// last line; TransientPrompt, when set, replaces the prompt of a line
	// once it is accepted. Both are called on redraws, so they return a
	// string computed beforehand.
	RightPrompt, TransientPrompt func() string
	// CompletionIgnoreCase lets a candidate whose start differs from the
	// typed word only in case complete it (the word is re-cased);
	// CompletionFuzzy lets candidates that hold the typed word's
	// characters in order complete it when none starts with it.
	CompletionIgnoreCase, CompletionFuzzy bool
	// CompletionNoMenu (completion.menu = false): Tab inserts what
	// diverging candidates share and shows no menu; one candidate is
	// inserted whole as always.
	CompletionNoMenu bool
}

// DefaultOptions are the settings without a config: emacs keys, colour,
// autosuggestions, the default history size.
func DefaultOptions() Options {
	return Options{
		Keymap:         "emacs",
		HistorySize:    DefaultHistorySize,
		Color:          true,
		Autosuggest:    true,
		ContinuePrompt: "  ...> ",
		BracketedPaste: true,
	}
}

// Hooks are what the editor asks of the language. Each may be nil.
type Hooks struct {
	// Complete lists the completion candidates for line at byte offset
	// pos (internal/complete through the session's context).
	Complete func(line string, pos int) []complete.Candidate
	// Incomplete reports whether src is a statement the parser wants
	// more of: Enter then continues the buffer on a new line.
	Incomplete func(src string) bool
	// IsBound reports value-bound session names, for the highlighter.
	IsBound func(name string) bool
	// KnownCommand reports whether a statement's head names a command
	// the session would run; the highlighter colours one it does not as
	// an error while it is typed (nil: every head is known).
	KnownCommand func(name string) bool
}

// Editor reads lines on the terminal of os.Stdin and os.Stdout.
type Editor struct {
	rl       *readline.Shell
	hist     *History
	prompt   string
	hooks    Hooks
	opts     Options
	problems []error
}

// New makes an editor. Its history is read from opts.HistoryPath; a
// history that cannot be read is kept in memory. The readline library
// also reads the user's inputrc (key bindings); these options are applied
// after it. What could not be applied (the history file, a key binding)
// is reported by Problems; the editor works without it.
func New(opts Options, hooks Hooks) *Editor {
	e := &Editor{opts: opts, hooks: hooks}
	var err error
	if e.hist, err = OpenHistory(opts.HistoryPath, opts.HistorySize); err != nil {
		e.problems = append(e.problems, fmt.Errorf("%w (history kept in memory)", err))
	}
	e.hist.SetDedup(opts.HistoryDedup)
	if err := e.hist.SetIgnore(opts.HistoryIgnoreSpace, opts.HistoryIgnore); err != nil {
		e.problems = append(e.problems, err)
	}
	rl := readline.NewShell()
	e.rl = rl
	rl.History.Add("history", e.hist)
	set := func(name string, v any) { _ = rl.Config.Set(name, v) }
	set("enable-bracketed-paste", opts.BracketedPaste)
	// The editor draws from the prompt's width: asking the terminal
	// where the cursor is (ESC[6n) hangs on terminals that never answer.
	set("cursor-position-probe", false)
	// Tab inserts what the candidates share and shows the rest in a menu;
	// it never selects one for the user.
	set("menu-complete-display-prefix", true)
	set("history-autosuggest", opts.Autosuggest)
	set("colored-completion-prefix", opts.Color)
	set("colored-stats", opts.Color)
	// The history is bounded by History itself (oldest out), not by the
	// library (which stops recording when full).
	set("history-size", 0)
	if opts.Keymap == "vi" {
		set("editing-mode", "vi")
		rl.Keymap.SetMain("vi-insert")
	} else {
		set("editing-mode", "emacs") // the library starts in emacs
	}
	e.bind(opts.Keybindings)
	rl.Prompt.Primary(func() string { return e.prompt })
	if opts.RightPrompt != nil {
		rl.Prompt.Right(opts.RightPrompt)
	}
	if opts.TransientPrompt != nil {
		// The library draws the transient prompt one row below the
		// accepted line (its cursor has already left it): go up to that
		// line and clear from there first.
		transient := opts.TransientPrompt
		rl.Prompt.Transient(func() string { return "\x1b[A\r\x1b[J" + transient() })
		set("prompt-transient", true)
	}
	set("completion-ignore-case", opts.CompletionIgnoreCase)
	// Every line of a multi-line buffer after the first starts with the
	// continuation prompt, drawn with the buffer (see render): the
	// library's own column (a bar on the lines between, the secondary
	// prompt on the last only) is off.
	rl.Prompt.Secondary(e.continuePrompt)
	set("multiline-column", false)
	// Up and Down move between the lines of a multi-line buffer, and
	// through the history from its first and last lines.
	for _, km := range []string{"emacs", "vi-insert", "vi-command"} {
		for _, seq := range []string{`\M-[A`, `\M-OA`} {
			_ = rl.Config.Bind(km, inputrc.Unescape(seq), "up-line-or-history", false)
		}
		for _, seq := range []string{`\M-[B`, `\M-OB`} {
			_ = rl.Config.Bind(km, inputrc.Unescape(seq), "down-line-or-history", false)
		}
	}
	e.bindInterrupt()
	rl.AcceptMultiline = e.acceptMultiline
	rl.PasteTransformer = e.paste
	rl.SyntaxHighlighter = e.render
	if hooks.Complete != nil {
		rl.Completer = e.complete
	}
	return e
}

// bindInterrupt makes Ctrl-C abandon the buffer wherever the person is:
// the library's abort (Ctrl-C, Ctrl-G) only closes a completion menu a
// selection was made in (or an incremental search) and leaves the line,
// so there it runs twice, the menu and then the line. It stays the
// command named abort: the library accepts the line as interrupted only
// when the active binding is that one.
func (e *Editor) bindInterrupt() {
	abort := e.rl.Keymap.Commands()["abort"]
	if abort == nil {
		return
	}
	e.rl.Keymap.Register(map[string]func(){
		"abort": func() {
			local := string(e.rl.Keymap.Local())
			abort()
			if local == "menu-select" || local == "isearch" {
				abort()
			}
		},
	})
}

// render is the buffer as the editor draws it: coloured (unless colour
// is off) and with the continuation prompt at the start of every line
// after the first. The library draws each of those lines from the
// prompt's column; a carriage return then the prompt, exactly that wide,
// puts it in the columns before.
func (e *Editor) render(line []rune) string {
	src := string(line)
	if e.opts.Color {
		theme := e.opts.Theme
		if theme == nil {
			theme = &highlight.Default
		}
		src = highlight.RenderKnown(src, e.hooks.IsBound, theme, e.hooks.KnownCommand)
	}
	if !strings.Contains(src, "\n") {
		return src
	}
	cont := e.continuePrompt()
	if cont == "" {
		return src
	}
	return strings.ReplaceAll(src, "\n", "\n\r"+cont)
}

// continuePrompt is the continuation prompt fitted to the width of the
// prompt's last line, where the buffer's text starts on every line.
func (e *Editor) continuePrompt() string {
	p := highlight.Strip(e.prompt)
	if i := strings.LastIndexByte(p, '\n'); i >= 0 {
		p = p[i+1:]
	}
	w := utf8.RuneCountInString(p)
	c := e.opts.ContinuePrompt
	if n := utf8.RuneCountInString(c); n > w {
		c = strings.TrimLeft(c, " ")
		if utf8.RuneCountInString(c) > w {
			return ""
		}
	}
	return strings.Repeat(" ", w-utf8.RuneCountInString(c)) + c
}

// bind applies key bindings to the keymaps of the editing mode; an
// unknown command or an empty sequence is a problem, not applied.
func (e *Editor) bind(binds map[string]string) {
	if len(binds) > maxKeybindings {
		e.problems = append(e.problems, fmt.Errorf("keybindings: %d, at most %d", len(binds), maxKeybindings))
		return
	}
	keymaps := []string{"emacs"}
	if e.opts.Keymap == "vi" {
		keymaps = []string{"vi-insert", "vi-command"}
	}
	commands := e.rl.Keymap.Commands()
	seqs := make([]string, 0, len(binds))
	for seq := range binds {
		seqs = append(seqs, seq)
	}
	sort.Strings(seqs)
	for _, seq := range seqs {
		action := binds[seq]
		keys := inputrc.Unescape(seq)
		if keys == "" {
			e.problems = append(e.problems, fmt.Errorf("keybindings: %q is not a key sequence", seq))
			continue
		}
		if _, ok := commands[action]; !ok {
			e.problems = append(e.problems, fmt.Errorf("keybindings: %q: no editor command %q", seq, action))
			continue
		}
		for _, km := range keymaps {
			_ = e.rl.Config.Bind(km, keys, action, false)
		}
	}
}

// Problems are the options that could not be applied (the history file,
// a key binding), for the REPL to show once at start.
func (e *Editor) Problems() []error { return e.problems }

// History is the editor's history.
func (e *Editor) History() *History { return e.hist }

// ReadLine shows prompt and reads one buffer: a line, or several when
// Enter was pressed on an incomplete statement or text was pasted. It
// returns io.EOF for Ctrl-D on an empty buffer and ErrInterrupted for
// Ctrl-C. The buffer is added to the history whole.
func (e *Editor) ReadLine(prompt string) (string, error) {
	e.prompt = prompt
	keepPartialLine()
	reserveRows()
	line, err := e.rl.Readline()
	if errors.Is(err, readline.ErrInterrupt) {
		return "", ErrInterrupted
	}
	return line, err
}

// ReserveRows is how many rows the editor keeps free below the prompt.
// It draws without asking the terminal where the cursor is (that query's
// answer can swallow keys typed ahead), so it cannot tell when the prompt
// sits on the bottom row, where a buffer that grows by a line (Enter on
// an open statement, a paste) would be drawn over itself. Moving down
// ReserveRows lines and back up before each prompt scrolls the screen
// only when it lacks them, and changes nothing otherwise.
const ReserveRows = 3

// keepPartialLine starts the prompt on a line of its own without erasing
// output that did not end its line (`^printf a`): it writes a marker and
// then a screen width of spaces less one. From column 0 they end on the
// same row, where a carriage return and a clear take the marker away;
// from any other column they wrap to the next row, so the output and the
// marker after it (which says the newline was missing, as zsh and fish
// show) stay above the prompt.
func keepPartialLine() {
	w, _, err := term.GetSize(int(os.Stdout.Fd()))
	if err != nil || w < 2 {
		return
	}
	fmt.Fprintf(os.Stdout, "\x1b[7m%%\x1b[0m%s\r\x1b[K", strings.Repeat(" ", w-1))
}

// reserveRows makes room for ReserveRows lines below the prompt.
func reserveRows() {
	fmt.Fprintf(os.Stdout, "%s\x1b[%dA", strings.Repeat("\r\n", ReserveRows), ReserveRows)
}

// acceptMultiline decides Enter: accept the buffer unless the parser
// wants more of it.
func (e *Editor) acceptMultiline(line []rune) bool {
	if e.hooks.Incomplete == nil {
		return true
	}
	src := string(line)
	if len(src) > MaxEntryBytes*16 {
		return true // the parser gives up on it anyway
	}
	return !e.hooks.Incomplete(src)
}

// paste receives a bracketed paste (line breaks already "\n"). The text is
// inserted whole, so its lines are one program, however they begin (a
// line starting with `.` or `else`). A paste that ends with a line break
// is entered, as pressing Enter after it would (and as it would without
// bracketed paste); without one it waits for Enter.
func (e *Editor) paste(text string) string {
	trimmed := strings.TrimRight(text, "\n")
	if trimmed != text && trimmed != "" {
		e.rl.Keys.Feed(false, '\r')
	}
	return trimmed
}

// complete answers the library's completion request. The library replaces
// the text typed before the cursor (its "prefix") with the candidate and
// keeps only candidates that start with it, so no candidate can remove
// typed text: one that does not extend the typed word is never shown.
func (e *Editor) complete(line []rune, cursor int) readline.Completions {
	cursor = min(max(cursor, 0), len(line))
	src := string(line)
	pos := len(string(line[:cursor]))
	cands := e.hooks.Complete(src, pos)
	prefix, vals, ok := candidates(src, pos, cands, e.opts.CompletionIgnoreCase)
	if !ok && e.opts.CompletionFuzzy {
		prefix, vals, ok = e.fuzzy(src, pos, cands) // fuzzy.go
	}
	if !ok {
		return readline.Completions{}
	}
	if e.opts.CompletionNoMenu && len(vals) > 1 {
		shared := vals[0].Value
		for _, v := range vals[1:] {
			n := 0
			for n < len(shared) && n < len(v.Value) && shared[n] == v.Value[n] {
				n++
			}
			shared = shared[:n]
		}
		if len(shared) <= len(prefix) {
			return readline.Completions{}
		}
		comps := readline.CompleteRaw([]readline.Completion{{Value: shared, Display: shared}})
		comps.PREFIX = prefix
		return comps.NoSpace()
	}
	comps := readline.CompleteRaw(vals)
	comps.PREFIX = prefix
	// A directory goes on being completed; anything else ends a word.
	return comps.NoSpace('/', '.', '(')
}

// Candidates turns internal/complete's answer for src at byte offset pos
// into what the library inserts: the text before the cursor it replaces
// (never empty, or the library would guess its own) and the values, each of which starts with that text, grouped by
// kind. ok is false when nothing can be offered without deleting typed
// text: candidates for a span that does not end at the cursor's word,
// names that do not extend the typed prefix, nothing typed yet (a blank
// buffer: every name and program), or a prefix that is not
// ASCII (the library counts it in bytes where it moves in characters).
func Candidates(src string, pos int, cands []complete.Candidate) (prefix string, vals []readline.Completion, ok bool) {
	return candidates(src, pos, cands, false)
}

// candidates is Candidates; with ignoreCase a candidate that starts with
// the typed text in another case is offered too (the library then
// re-cases the word, as completion-ignore-case is set).
func candidates(src string, pos int, cands []complete.Candidate, ignoreCase bool) (prefix string, vals []readline.Completion, ok bool) {
	if len(cands) == 0 || pos < 0 || pos > len(src) || strings.TrimSpace(src[:pos]) == "" {
		return "", nil, false // nothing typed: every name and program would be offered
	}
	span := cands[0].Replace
	start, end := int(span.Start), int(span.End)
	if start < 0 || start > pos || end < pos || end > len(src) {
		return "", nil, false
	}
	typed := src[start:pos]
	lead := ""
	if typed == "" {
		// Nothing typed of the word yet (after `.` or a space): the prefix
		// is the character before it, given back by every value.
		if start == 0 {
			return "", nil, false
		}
		_, w := utf8.DecodeLastRuneInString(src[:start])
		lead = src[start-w : start]
	}
	prefix = lead + typed
	if !ascii(prefix) {
		return "", nil, false
	}
	seen := map[string]bool{}
	for _, c := range cands {
		extends := strings.HasPrefix(c.Label, typed) ||
			ignoreCase && len(c.Label) >= len(typed) && strings.EqualFold(c.Label[:len(typed)], typed)
		if c.Replace != span || !extends || seen[c.Label] {
			continue
		}
		seen[c.Label] = true
		desc := ""
		if c.Kind == complete.KindVariable {
			desc = c.Detail // the value's kind; others say their group's name
		}
		vals = append(vals, readline.Completion{
			Value:       lead + c.Label,
			Display:     c.Label,
			Description: desc,
			Tag:         tagOf(c.Kind),
		})
	}
	if len(vals) == 0 {
		return "", nil, false
	}
	return prefix, vals, true
}

// tagOf is the menu group of a candidate kind.
func tagOf(kind string) string {
	switch kind {
	case complete.KindBuiltin:
		return "builtins"
	case complete.KindCommand:
		return "commands"
	case complete.KindFunction:
		return "functions"
	case complete.KindVariable:
		return "variables"
	case complete.KindMethod:
		return "methods"
	case complete.KindField:
		return "fields"
	case complete.KindPath:
		return "paths"
	case complete.KindNamespace:
		return "namespaces"
	case complete.KindKeyword:
		return "keywords"
	case complete.KindFlag:
		return "flags"
	}
	return kind
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
