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

	"github.com/peterh/liner"
	"golang.org/x/term"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/repl"
)

// interactive runs the REPL on the terminal: liner edits lines (history,
// Ctrl-R search, Tab completion), Ctrl-C abandons the line being typed or,
// while a statement runs, stops it.
// With remote set, statements run in that kernel session (remote.go).
func interactive(ctx context.Context, stdout, stderr io.Writer, remote *remoteTarget) int {
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 1
	}
	// The terminal's own modes, before liner makes it raw: a command run
	// in the foreground gets them back while it runs.
	fd := int(os.Stdin.Fd())
	cooked, err := term.GetState(fd)
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 1
	}
	h := &terminalHost{Host: host.NewOS(host.AllowAll), fd: fd, cooked: cooked}
	in, err := eval.New(eval.Options{Host: h, Dir: dir, Stdout: stdout, Stderr: stderr, REPL: true, Terminal: os.Stdin})
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 1
	}
	var sess repl.Session
	if remote != nil {
		r, err := dialRemote(ctx, *remote, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "shoal: %v\n", err)
			return 1
		}
		defer r.Close()
		sess = r
	}
	line := liner.NewLiner()
	defer line.Close()
	line.SetCtrlCAborts(true)
	line.SetMultiLineMode(true)
	line.SetTabCompletionStyle(liner.TabPrints)
	line.SetWordCompleter(func(text string, pos int) (string, []string, string) {
		return repl.Complete(text, pos, repl.Context(ctx, in, h))
	})
	hist := historyPath()
	if f, err := os.Open(hist); err == nil {
		_, _ = line.ReadHistory(f)
		f.Close()
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
	code := repl.Run(ctx, linerReader{line}, repl.Config{
		Interp: in, Session: sess, Stdout: stdout, Stderr: stderr,
		Width:  terminalWidth,
		Record: line.AppendHistory,
	}, &intr)
	saveHistory(line, hist, stderr)
	return code
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

// linerReader adapts liner to repl.LineReader.
type linerReader struct{ s *liner.State }

func (l linerReader) ReadLine(prompt string) (string, error) {
	s, err := l.s.Prompt(prompt)
	if errors.Is(err, liner.ErrPromptAborted) {
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

// saveHistory writes the history (liner keeps the last liner.HistoryLimit
// lines) privately: it may hold secrets typed by hand.
func saveHistory(line *liner.State, path string, stderr io.Writer) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		fmt.Fprintf(stderr, "shoal: history: %v\n", err)
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		fmt.Fprintf(stderr, "shoal: history: %v\n", err)
		return
	}
	defer f.Close()
	if _, err := line.WriteHistory(f); err != nil {
		fmt.Fprintf(stderr, "shoal: history: %v\n", err)
	}
}
