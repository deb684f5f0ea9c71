package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/diag"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/prompt"
	"github.com/shoalgo/shoal/internal/repl"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/userconfig"
)

// promptANSI says whether the line editor measures escape sequences in a
// prompt (github.com/reeflective/readline does; github.com/peterh/liner
// counts them as columns and misplaces the cursor), so a coloured prompt
// is safe to give it.
const promptANSI = false

// loadUserConfig reads the user's configuration for the REPL
// (internal/userconfig). Unknown keys are warnings; a file that cannot be
// used is left out with one warning naming file:line:col (the REPL starts
// without it, never refuses to start). reported lists the files warned
// about, so the config namespace's snapshot does not warn again.
func loadUserConfig(stderr io.Writer) (cfg *userconfig.Config, reported map[string]bool) {
	home, _ := os.UserHomeDir()
	l := userconfig.LoadSkipping(userconfig.Env{Getenv: os.Getenv, Home: home})
	reported = map[string]bool{}
	for _, e := range l.Problems {
		replWarnConfig(stderr, e.Error())
		reported[e.File] = true
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(stderr, "shoal: warning: %s\n", w)
	}
	for _, w := range unknownPromptModules(&l.Config.Prompt) {
		fmt.Fprintf(stderr, "shoal: warning: %s\n", w)
	}
	return l.Config, reported
}

// promptFunc renders the prompt before each statement from a snapshot:
// the session's directory, the git branch (a few small reads up the tree,
// once per prompt, never per keystroke), the last status and the jobs;
// the modules that cost more (git_status, cmd_duration, reef, ...) only
// when a format names them (promptfacts.go). The right and transient
// prompts are rendered from the same snapshot into ps, where the editor
// reads them on redraws.
func promptFunc(cfg *userconfig.Config, in *eval.Interp, color bool, ps *promptSides, remote *remoteSession) func(int) string {
	facts := newPromptFacts()
	p := &cfg.Prompt
	wantReef := usesModule(p, "reef")
	return func(status int) string {
		dir := in.Dir()
		st := facts.state(cfg, dir, status, color)
		st.Jobs = in.LiveTasks()
		if remote != nil {
			st.Principal, st.Agent, st.Leash = remotePromptFacts(remote)
		}
		if wantReef {
			st.Reef = reefTools(context.Background(), in, dir)
		}
		if ps != nil {
			st.Duration = ps.lastDuration()
			ps.set(prompt.Right(p, st), prompt.Transient(p, st))
		}
		return prompt.Render(p, st)
	}
}

// promptFacts are the facts of a prompt that do not change while shoal
// runs: home, host, user, whether over SSH.
type promptFacts struct {
	home, host, user string
	ssh              bool
}

func newPromptFacts() promptFacts {
	home, _ := os.UserHomeDir()
	hostname, _ := os.Hostname()
	return promptFacts{home: home, host: hostname, user: os.Getenv("USER"),
		ssh: os.Getenv("SSH_CONNECTION") != "" || os.Getenv("SSH_TTY") != ""}
}

// state is the snapshot one prompt renders from in dir after status, as a
// standalone session sees it (the caller adds jobs, a kernel's facts and
// reef): the branch read from .git, git status run only when a format
// names it.
func (f promptFacts) state(cfg *userconfig.Config, dir string, status int, color bool) prompt.State {
	st := prompt.State{
		Dir: dir, Home: f.home, Status: status, Branch: prompt.GitBranch(dir, readSmallFile),
		User: f.user, Host: f.host, SSH: f.ssh, Now: time.Now(),
		Color: color && cfg.Render.Color, Principal: f.user, Leash: "allow-all",
	}
	if usesModule(&cfg.Prompt, "git_status") && st.Branch != "" {
		st.Git = gitStatus(context.Background(), dir)
	}
	return st
}

// promptSides holds the right and transient prompts of the prompt being
// shown, and when the last line was accepted (for cmd_duration).
type promptSides struct {
	mu           sync.Mutex
	right, trans string
	accepted     time.Time
}

func (ps *promptSides) set(right, trans string) {
	ps.mu.Lock()
	ps.right, ps.trans = right, trans
	ps.mu.Unlock()
}

// Right and Transient are the editor's callbacks.
func (ps *promptSides) Right() string { ps.mu.Lock(); defer ps.mu.Unlock(); return ps.right }
func (ps *promptSides) Transient() string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.trans
}

// accept records that a line was accepted now.
func (ps *promptSides) accept() { ps.mu.Lock(); ps.accepted = time.Now(); ps.mu.Unlock() }

// lastDuration is the time since the last accepted line (0 before the
// first), taken once: a prompt drawn again without a new line shows none.
func (ps *promptSides) lastDuration() time.Duration {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.accepted.IsZero() {
		return 0
	}
	d := time.Since(ps.accepted)
	ps.accepted = time.Time{}
	return d
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
	return diag.Styles{Error: sgr(cfg.Colors.DiagError), Hint: sgr(cfg.Colors.DiagHint), Caret: sgr(cfg.Colors.DiagCaret), Gutter: sgr(cfg.Colors.DiagGutter)}
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

// sessionEnv is the process environment with the configuration's [env]
// entries set over it (nil, the host's environment, when there are none).
func sessionEnv(cfg *userconfig.Config) []string {
	if len(cfg.Env) == 0 {
		return nil
	}
	env := os.Environ()
	names := make([]string, 0, len(cfg.Env))
	for k := range cfg.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
		env = append(env, k+"="+cfg.Env[k])
	}
	return env
}

// startSession defines the configured aliases (each must be one `alias`
// statement's command) and runs the init files in order with `source`; a
// failure is shown and the session starts regardless.
func startSession(ctx context.Context, in *eval.Interp, cfg *userconfig.Config, stderr io.Writer, st diag.Styles) {
	names := make([]string, 0, len(cfg.Aliases))
	for k := range cfg.Aliases {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		src := "alias " + name + " = " + cfg.Aliases[name]
		label := "config aliases." + name
		prog, err := syntax.Parse(src, syntax.ParseOptions{IsBound: in.IsBound})
		if err == nil && (len(prog.Stmts) != 1 || !isAlias(prog.Stmts[0])) {
			err = fmt.Errorf("config aliases.%s must be one command, not %q", name, cfg.Aliases[name])
		}
		if err == nil {
			_, err = in.EvalProgram(ctx, prog)
		}
		if err != nil {
			fmt.Fprint(stderr, diag.FormatStyled(label, src, err, st))
		}
	}
	home, _ := os.UserHomeDir()
	for _, f := range cfg.Init.Files {
		if rest, ok := strings.CutPrefix(f, "~/"); ok && home != "" {
			f = filepath.Join(home, rest)
		}
		src := "source " + strconv.Quote(f)
		if _, err := in.Eval(ctx, src); err != nil {
			fmt.Fprint(stderr, diag.FormatStyled("config init.files", src, err, st))
		}
	}
}

func isAlias(s syntax.Stmt) bool { _, ok := s.(*syntax.AliasStmt); return ok }

// displayOptions maps the configuration's render.* keys to the REPL's
// display (repl.Display): time precision, what a tall table does, the
// head's rows and the pager.
func displayOptions(cfg *userconfig.Config) repl.Display {
	tall, err := repl.ParseTall(cfg.Render.Paging)
	if err != nil { // validated at load; the display's default otherwise
		tall = repl.TallHead
	}
	return repl.Display{
		TimePrecision: cfg.Render.TimeUnit(),
		Tall:          tall,
		HeadRows:      cfg.Render.HeadRows,
		Pager:         cfg.Render.Pager,
		PromptLines:   1 + strings.Count(cfg.Prompt.Format.Left, "\n"),
	}
}

// displayWidth is the width values are displayed at: render.width when
// it is set, else the terminal's.
func displayWidth(cfg *userconfig.Config) func() int {
	if w := cfg.Render.Width; w > 0 {
		return func() int { return w }
	}
	return terminalWidth
}
