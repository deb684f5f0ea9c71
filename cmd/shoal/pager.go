package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/repl"
)

// pagerWords is the pager command as words: the configured one, else
// PAGER from env (the session's environment), else repl.DefaultPager.
// Words are split on white space; no shell runs them.
func pagerWords(configured string, env []string) []string {
	pager := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PAGER="); ok {
			pager = v // the last one wins, as in a lookup of the environment
		}
	}
	for _, c := range []string{configured, pager} {
		if w := strings.Fields(c); len(w) > 0 {
			return w
		}
	}
	return strings.Fields(repl.DefaultPager)
}

// page shows text through the pager in the terminal's foreground, the way
// a command typed at the prompt runs (the terminal's own modes, its keys
// signalling the pager, not the shell), in directory dir with environment
// env (the session's). The text goes in a private temporary file named as
// the pager's last argument, so the pager reads its keys from the
// terminal. A pager that cannot be found, fails or is stopped (Ctrl-Z: it
// is ended, not kept as a job) is an error, and the REPL prints the text
// instead.
func (h *terminalHost) page(ctx context.Context, words []string, text string, env []string, dir string) error {
	prog, err := h.LookPath(ctx, words[0], env)
	if err != nil {
		return fmt.Errorf("pager %s: %w", words[0], err)
	}
	f, err := os.CreateTemp("", "shoal-page-*.txt")
	if err != nil {
		return fmt.Errorf("pager: %w", err)
	}
	defer os.Remove(f.Name())
	_, werr := f.WriteString(text)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("pager: %w", err)
	}
	argv := append([]string{prog}, words[1:]...)
	argv = append(argv, f.Name())
	res, err := h.RunTerminal(ctx, &host.Spawn{Argv: argv, Dir: dir, Env: env}, h.fd)
	if err != nil {
		return fmt.Errorf("pager: %w", err)
	}
	if res.Stopped != nil {
		ended, cancel := context.WithCancel(context.Background())
		cancel()
		_, _, _ = res.Stopped.Wait(ended) // ends its whole tree
		return errors.New("pager: stopped")
	}
	if res.Status == nil || *res.Status != 0 {
		return fmt.Errorf("pager %s: did not finish cleanly", words[0])
	}
	return nil
}

// terminalHeight is the height of the terminal on stdout (0 when unknown).
func terminalHeight() int {
	_, h, err := term.GetSize(int(os.Stdout.Fd()))
	if err != nil {
		return 0
	}
	return h
}
