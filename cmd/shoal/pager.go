package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

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
// signalling the pager, not the shell), with environment env (the
// session's). The text goes in a private temporary directory, in a file
// named after what is paged (title, the statement typed; see pageName)
// given to the pager as its last argument by that name, with the pager
// running in that directory: the pager reads its keys from the terminal,
// and its status line names what it shows (less: `ls -la (END)`), not a
// temporary path. A pager that cannot be found, fails or is stopped
// (Ctrl-Z: it is ended, not kept as a job) is an error, and the REPL
// prints the text instead.
func (h *terminalHost) page(ctx context.Context, words []string, title, text string, env []string) error {
	prog, err := h.LookPath(ctx, words[0], env)
	if err != nil {
		return fmt.Errorf("pager %s: %w", words[0], err)
	}
	dir, err := os.MkdirTemp("", "shoal-page-*")
	if err != nil {
		return fmt.Errorf("pager: %w", err)
	}
	defer os.RemoveAll(dir)
	name := pageName(title)
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("pager: %w", err)
	}
	_, werr := f.WriteString(text)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("pager: %w", err)
	}
	argv := append([]string{prog}, words[1:]...)
	argv = append(argv, name)
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

// maxPageName bounds the paged file's name in bytes (file systems allow
// 255).
const maxPageName = 80

// pageName is the file name the pager shows for title: its text on one
// line, a slash shown as the division slash U+2215 (a name holds none),
// control characters as spaces, at most maxPageName bytes; a name a pager
// could take for an option (a leading - or +) starts with "./", and an
// empty one, ".", or ".." is "shoal".
func pageName(title string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.TrimSpace(title) {
		switch {
		case r == '/':
			r = '\u2215'
		case unicode.IsControl(r) || unicode.IsSpace(r):
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		if b.Len()+utf8.RuneLen(r) > maxPageName {
			break
		}
		b.WriteRune(r)
	}
	name := strings.TrimSpace(b.String())
	switch {
	case name == "" || name == "." || name == "..":
		return "shoal"
	case name[0] == '-' || name[0] == '+':
		return "./" + name
	}
	return name
}

// terminalHeight is the height of the terminal on stdout (0 when unknown).
func terminalHeight() int {
	_, h, err := term.GetSize(int(os.Stdout.Fd()))
	if err != nil {
		return 0
	}
	return h
}
