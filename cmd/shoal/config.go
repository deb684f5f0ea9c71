package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/shoalgo/shoal/internal/diag"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/prompt"
	"github.com/shoalgo/shoal/internal/userconfig"
)

// promptANSI says whether the line editor measures escape sequences in a
// prompt (github.com/reeflective/readline does; github.com/peterh/liner
// counts them as columns and misplaces the cursor), so a coloured prompt
// is safe to give it.
const promptANSI = false

// loadUserConfig reads the user's configuration for the REPL
// (internal/userconfig). Unknown keys are warnings; a bad file is an error
// with its line and column, and the REPL starts with the defaults rather
// than refusing to start, saying so.
func loadUserConfig(stderr io.Writer) *userconfig.Config {
	home, _ := os.UserHomeDir()
	l, err := userconfig.Load(userconfig.Env{Getenv: os.Getenv, Home: home})
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\nshoal: using the default configuration\n", err)
		return userconfig.Default()
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(stderr, "shoal: warning: %s\n", w)
	}
	for _, name := range prompt.Unknown(l.Config.Prompt.Format.Left) {
		fmt.Fprintf(stderr, "shoal: warning: prompt format: unknown module `$%s`\n", name)
	}
	return l.Config
}

// promptFunc renders the prompt before each statement from a snapshot:
// the session's directory, the git branch (a few small reads up the tree,
// once per prompt, never per keystroke), the last status and the jobs.
func promptFunc(cfg *userconfig.Config, in *eval.Interp, color bool) func(int) string {
	home, _ := os.UserHomeDir()
	hostname, _ := os.Hostname()
	user := os.Getenv("USER")
	ssh := os.Getenv("SSH_CONNECTION") != "" || os.Getenv("SSH_TTY") != ""
	return func(status int) string {
		dir := in.Dir()
		return prompt.Render(&cfg.Prompt, prompt.State{
			Dir: dir, Home: home, Status: status, Branch: prompt.GitBranch(dir, readSmallFile),
			User: user, Host: hostname, SSH: ssh, Now: time.Now(), Jobs: in.LiveTasks(),
			Color: color && cfg.Render.Color,
		})
	}
}

// continuePrompt is the configured continuation prompt.
func continuePrompt(cfg *userconfig.Config) string {
	return prompt.Continuation(&cfg.Prompt, prompt.State{})
}

// diagStyles are the configured diagnostic colours, when colour is
// allowed and stderr is a terminal (plain text otherwise).
func diagStyles(cfg *userconfig.Config, stderr io.Writer) diag.Styles {
	f, ok := stderr.(*os.File)
	if !ok || !cfg.Render.Color || !isTerminal(f) {
		return diag.Styles{}
	}
	sgr := func(s string) string {
		st, err := userconfig.ParseStyle(s, nil)
		if err != nil {
			return ""
		}
		return st.SGR()
	}
	return diag.Styles{Error: sgr(cfg.Colors.Error), Hint: sgr(cfg.Colors.Hint), Caret: sgr(cfg.Colors.Caret), Gutter: sgr("blue")}
}

// terminalDiagStyles colours the diagnostics of -c and scripts with the
// default colours when stderr is a terminal and NO_COLOR is not set; it
// reads no configuration file, so cold start stays fast.
func terminalDiagStyles(stderr io.Writer) diag.Styles {
	if os.Getenv("NO_COLOR") != "" {
		return diag.Styles{}
	}
	return diagStyles(userconfig.Default(), stderr)
}

// readSmallFile reads at most limit bytes of a regular file.
func readSmallFile(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, int64(limit)))
}
