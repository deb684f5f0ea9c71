package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/highlight"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/lineedit"
	"github.com/shoalgo/shoal/internal/repl"
	"github.com/shoalgo/shoal/internal/userconfig"
)

// interactive runs the REPL on the terminal: internal/lineedit edits
// buffers (highlighting, completion, multi-line entries, history and its
// search, bracketed paste), Ctrl-C abandons the buffer being typed or,
// while a statement runs, stops it.
// With remote set, statements run in that kernel session (remote.go).
func interactive(ctx context.Context, stdout, stderr io.Writer, remote *remoteTarget) int {
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 1
	}
	// The terminal's own modes, before the editor makes it raw: a command
	// run in the foreground gets them back while it runs.
	fd := int(os.Stdin.Fd())
	cooked, err := term.GetState(fd)
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 1
	}
	cfg, reported := loadUserConfig(stderr)
	display := displayOptions(cfg) // the user's render.* settings
	// The editor keeps rows free below the prompt: a tall value's head
	// leaves them too, so its header stays in sight.
	display.PromptLines = max(display.PromptLines, 1) + lineedit.ReserveRows
	h := &terminalHost{Host: host.NewOS(host.AllowAll), fd: fd, cooked: cooked}
	tr := newCLITrust(stderr)
	langCfg := replLanguageConfig(dir, tr, reported, stderr) // never locks the person out (configwarn.go)
	in, err := eval.New(eval.Options{Registry: registry(), Host: h, Dir: dir, Stdout: stdout, Stderr: stderr, REPL: true, KeepJobOutput: remote == nil, Terminal: os.Stdin, Env: sessionEnv(cfg), Config: langCfg, Reef: true,
		ProjectTrust: tr, TrustNotice: tr.notice, Adapters: sessionAdapters(stderr),
		Display: display.Style()})
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 1
	}
	var sess repl.Session
	var rs *remoteSession
	if remote != nil {
		remote.Style = display.Style()
		r, err := dialRemote(ctx, *remote, stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "shoal: %v\n", err)
			return 1
		}
		defer r.Close()
		// The prompt, completion and the pager follow the session's
		// directory: the local interpreter is kept there.
		r.onCwd = func(d string) { _ = in.Enter(ctx, d) }
		r.onCwd(r.cwd)
		sess, rs = r, r
	}
	if remote == nil {
		startSession(ctx, in, cfg, stderr, diagStyles(cfg, stderr))
	}
	var paths repl.Completer
	sides := &promptSides{}
	edOpts := editorOptions(cfg)
	if cfg.Prompt.Format.Right != "" {
		edOpts.RightPrompt = sides.Right
	}
	if cfg.Prompt.Transient.Enabled {
		edOpts.TransientPrompt = sides.Transient
	}
	ed := lineedit.New(edOpts, lineedit.Hooks{
		Complete: func(line string, pos int) []complete.Candidate {
			cctx := paths.Context(ctx, in, h)
			cctx.Match = &complete.Match{CaseInsensitive: cfg.Completion.CaseInsensitive, Fuzzy: cfg.Completion.Fuzzy,
				MaxResults: cfg.Completion.MaxResults}
			return complete.Complete(line, pos, cctx)
		},
		Incomplete:   func(src string) bool { return repl.Incomplete(src, in.IsBound) },
		IsBound:      in.IsBound,
		KnownCommand: paths.Known(ctx, in, h),
	})
	for _, err := range ed.Problems() {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
	}
	if hist := ed.History(); remote == nil && hist != nil {
		in.SetLineHistory(hist.Entries) // `history` here: the lines typed
	}

	var intr repl.Interrupter
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
			intr.Interrupt()
		}
	}()
	// Ctrl-Z while a statement runs in the REPL itself must not stop the
	// shell: a caught signal that is dropped (never an ignore, which
	// programs it starts would inherit; a caught one is reset at exec, so
	// they stay stoppable). A command with the terminal gets Ctrl-Z itself.
	stops := make(chan os.Signal, 1)
	signal.Notify(stops, syscall.SIGTSTP, syscall.SIGTTIN)
	defer signal.Stop(stops)

	// Leaving ends the session's jobs, stopped ones included, with their
	// whole trees.
	defer func() {
		in.Close()
		wctx, cancel := context.WithTimeout(context.Background(), jobsEndWait)
		defer cancel()
		_ = in.WaitTasks(wctx)
	}()
	// The editor records each accepted buffer whole in its history.
	return repl.Run(ctx, editorReader{ed, sides}, repl.Config{
		Interp: in, Session: sess, Stdout: stdout, Stderr: stderr,
		Width:  displayWidth(cfg),
		Prompt: promptFunc(cfg, in, promptANSI, sides, rs), ContinuePrompt: continuePrompt(cfg),
		Diag:   diagStyles(cfg, stderr),
		Height: terminalHeight,
		Page: func(ctx context.Context, text string) error {
			env := in.Environ()
			return h.page(ctx, pagerWords(display.Pager, env), repl.PageTitle(ctx), text, env)
		},
		Display:         display,
		EchoesInterrupt: echoesInterrupt(os.Stdin),
	}, &intr)
}

// editorOptions are the line editor's settings from the user's
// configuration: keymap, key bindings, history file and what it keeps,
// colours (none where NO_COLOR is set or the terminal is dumb).
func editorOptions(cfg *userconfig.Config) lineedit.Options {
	opts := lineedit.DefaultOptions()
	opts.HistoryPath = historyPath()
	if cfg.History.Path != "" {
		opts.HistoryPath = cfg.History.Path
	}
	if !cfg.History.Enabled {
		opts.HistoryPath = ""
	}
	opts.HistorySize = cfg.History.MaxEntries
	opts.HistoryIgnoreSpace = cfg.History.IgnoreSpace
	opts.HistoryIgnore = cfg.History.Ignore
	opts.HistoryDedup = cfg.History.Dedup
	opts.Keymap = cfg.Editor.Mode
	opts.Keybindings = cfg.Editor.Keybindings
	opts.Autosuggest = cfg.Editor.Autosuggest
	opts.BracketedPaste = cfg.Editor.BracketedPaste
	opts.ContinuePrompt = continuePrompt(cfg)
	opts.CompletionIgnoreCase = cfg.Completion.CaseInsensitive
	opts.CompletionFuzzy = cfg.Completion.Fuzzy
	opts.CompletionNoMenu = !cfg.Completion.Menu
	opts.Color = cfg.Render.Color && cfg.Editor.Highlight
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		opts.Color = false
	}
	theme := highlight.Default
	for _, name := range highlight.ClassNames {
		if sgr := cfg.Style(name).SGR(); sgr != "" {
			theme.Set(name, sgr)
		}
	}
	opts.Theme = &theme
	return opts
}

// jobsEndWait bounds how long leaving the REPL waits for its jobs to end.
const jobsEndWait = 5 * time.Second

// terminalHost hands the terminal its own modes for the time a command
// runs in its foreground, and the line editor's back afterwards.
type terminalHost struct {
	host.Host
	fd     int
	cooked *term.State
}

func (h *terminalHost) RunTerminal(ctx context.Context, s *host.Spawn, tty int) (*host.Result, error) {
	if editing, err := term.GetState(h.fd); err == nil {
		_ = term.Restore(h.fd, h.cooked)
		defer func() { _ = term.Restore(h.fd, editing) }()
	}
	return h.Host.RunTerminal(ctx, s, tty)
}

// editorReader adapts the line editor to repl.LineReader.
type editorReader struct {
	ed    *lineedit.Editor
	sides *promptSides // nil: no cmd_duration
}

func (r editorReader) ReadLine(prompt string) (string, error) {
	s, err := r.ed.ReadLine(prompt)
	if err == nil && r.sides != nil {
		r.sides.accept()
	}
	if errors.Is(err, lineedit.ErrInterrupted) {
		return "", repl.ErrInterrupted
	}
	return s, err
}

// terminalWidth is the width of the terminal on stdout (0 when unknown).
func terminalWidth() int {
	w, _, err := term.GetSize(int(os.Stdout.Fd()))
	if err != nil {
		return 0
	}
	return w
}

// historyPath is $XDG_STATE_HOME/shoal/history, or
// ~/.local/state/shoal/history ("" when neither is known).
func historyPath() string {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "shoal", "history")
}
