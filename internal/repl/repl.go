// Package repl owns the interactive read-eval-print loop of the shoal
// command: prompting, input that continues over several lines while a
// statement is incomplete, evaluation with the REPL's `it` and `out`, the
// display of each value, diagnostics, and completion. It reads lines
// through a LineReader, so the terminal (the shoal command wraps
// internal/lineedit) and tests drive the same loop.
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/shoalgo/shoal/internal/diag"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Prompts shown for a new statement and for a continuation line.
const (
	Prompt         = "shoal> "
	ContinuePrompt = "  ...> "
)

// MaxPending bounds the source a statement may gather over continuation
// lines before it is given up.
const MaxPending = 1 << 20

// ErrInterrupted is returned by a LineReader when the user abandons the
// line being typed (Ctrl-C): pending input is dropped, the loop goes on.
var ErrInterrupted = errors.New("input interrupted")

// LineReader reads one line of input after showing prompt. io.EOF ends the
// session (Ctrl-D on an empty line).
type LineReader interface {
	ReadLine(prompt string) (string, error)
}

// Config is what the loop works with.
type Config struct {
	// Interp is the session; it must have been created with REPL set.
	Interp *eval.Interp
	// Session, when set, runs statements instead of Interp (a kernel's).
	Session Session
	// Registry is what the display consults about builtins (a statement
	// ending in `cd` shows nothing); nil: Interp's.
	Registry *eval.Registry
	// Stdout receives values, Stderr diagnostics.
	Stdout, Stderr io.Writer
	// Width is the terminal width used to display values (nil: 80).
	Width func() int
	// Record, when set, is told of each complete statement (history).
	Record func(src string)
	// Prompt, when set, renders the prompt for a new statement from the
	// last statement's exit status (see Status); nil shows Prompt.
	Prompt func(lastStatus int) string
	// ContinuePrompt, when not empty, replaces ContinuePrompt.
	ContinuePrompt string
	// Diag colours diagnostics (the zero value is plain text).
	Diag diag.Styles
	// Display is how values are shown (times, tall tables).
	Display Display
	// Height is the terminal height in lines (nil or 0: unknown, values
	// print whole).
	Height func() int
	// Page, when set, shows a tall display's text through the pager
	// command (Display.Pager, $PAGER or DefaultPager: the caller picks);
	// an error means it could not, and the text is printed instead.
	Page func(ctx context.Context, text string) error
	// EchoesInterrupt reports that the terminal shows Ctrl-C as `^C`
	// itself (its ECHOCTL mode): the note after an interrupted statement
	// then does not print a second one.
	EchoesInterrupt bool
}

// Interrupter cancels the evaluation running when Interrupt is called
// (the shoal command calls it on SIGINT); with none running it does
// nothing.
type Interrupter struct {
	mu     sync.Mutex
	cancel context.CancelFunc
}

// Interrupt cancels the running evaluation, if any.
func (i *Interrupter) Interrupt() {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.cancel != nil {
		i.cancel()
	}
}

func (i *Interrupter) start(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	i.mu.Lock()
	i.cancel = cancel
	i.mu.Unlock()
	return ctx, func() {
		i.mu.Lock()
		i.cancel = nil
		i.mu.Unlock()
		cancel()
	}
}

// Run reads, evaluates and prints until end of input, `exit`, or ctx's end,
// and returns the exit status: the code `exit N` asked for, else 0.
// Evaluations run under a context that intr (may be nil) can cancel.
func Run(ctx context.Context, lr LineReader, cfg Config, intr *Interrupter) int {
	if intr == nil {
		intr = &Interrupter{}
	}
	var pending strings.Builder
	last := 0 // the last statement's exit status, for the prompt
	for ctx.Err() == nil {
		prompt := Prompt
		if cfg.Prompt != nil {
			prompt = cfg.Prompt(last)
		}
		if pending.Len() == 0 {
			reportJobs(cfg)
		}
		if pending.Len() > 0 {
			prompt = ContinuePrompt
			if cfg.ContinuePrompt != "" {
				prompt = cfg.ContinuePrompt
			}
		}
		line, err := lr.ReadLine(prompt)
		if errors.Is(err, ErrInterrupted) {
			pending.Reset()
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(cfg.Stderr, "shoal: reading input: %v\n", err)
				return 1
			}
			return 0
		}
		if pending.Len() > 0 {
			pending.WriteByte('\n')
		}
		pending.WriteString(line)
		src := pending.String()
		if strings.TrimSpace(src) == "" {
			pending.Reset()
			continue
		}
		prog, err := syntax.Parse(src, syntax.ParseOptions{IsBound: cfg.session().IsBound, REPL: true})
		var perr *syntax.Error
		if errors.As(err, &perr) && perr.Incomplete && pending.Len() < MaxPending {
			continue // keep reading: an open bracket, string or block
		}
		pending.Reset()
		if cfg.Record != nil {
			cfg.Record(src)
		}
		if err != nil {
			fmt.Fprint(cfg.Stderr, diag.FormatStyled("<repl>", src, err, cfg.Diag))
			last = 2 // a parse error, as the CLI's exit status
			continue
		}
		code, done := evalOne(ctx, cfg, intr, src, prog)
		if done {
			return code
		}
		last = code
	}
	return 0
}

// evalOne evaluates one statement and prints its value or error; done
// reports an `exit` (code is its status); otherwise code is the
// statement's status (Status).
func evalOne(ctx context.Context, cfg Config, intr *Interrupter, src string, prog *syntax.Program) (code int, done bool) {
	ectx, stop := intr.start(ctx)
	v, err := cfg.session().Eval(ectx, src, prog)
	interrupted := ectx.Err() != nil && ctx.Err() == nil // Ctrl-C, not the REPL's end
	stop()
	if code, ok := cfg.session().ExitRequested(); ok {
		return code, true
	}
	if err != nil && interrupted {
		// Ctrl-C stopped it: a one-line note, not a diagnostic.
		if cfg.EchoesInterrupt {
			fmt.Fprintln(cfg.Stderr, " interrupted")
		} else {
			fmt.Fprintln(cfg.Stderr, "^C interrupted")
		}
		return 130, false
	}
	if err != nil {
		fmt.Fprint(cfg.Stderr, diag.FormatStyled("<repl>", src, err, cfg.Diag))
		return Status(v, err), false
	}
	if tk, ok := v.(*eval.Task); ok && strings.HasSuffix(strings.TrimSpace(src), "&") {
		// A job started at the prompt: its number and command, as a
		// shell shows them (`it` is its task).
		fmt.Fprintf(cfg.Stdout, "[%d] %s\n", tk.JobNumber(), tk.Desc())
	} else if h, ok := v.(*value.Handle); ok && h.K == value.KTask && strings.HasSuffix(strings.TrimSpace(src), "&") {
		// The same through a kernel: the kernel's task number, which
		// `jobs` and %N there use too (eval.Task.JobNumber), as does its
		// end report (cmd/shoal's remote JobReports).
		desc := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(src), "&"))
		fmt.Fprintf(cfg.Stdout, "[%s] %s\n", strings.TrimPrefix(h.Repr, "task:"), desc)
	} else if Printable(cfg.registry(), prog, v) {
		showValue(withPageTitle(ctx, src), cfg, v)
	}
	return Status(v, nil), false
}

// Status is the exit status a statement leaves: for an error, a failed
// external command's own status when it is 1..255, else 1; for an outcome,
// its status when it failed (1 when a signal ended it); else 0. The shoal
// command's exit status for a script and the prompt's last status are both
// this.
func Status(v value.Value, err error) int {
	if err != nil {
		var e *value.Error
		if errors.As(err, &e) && e.Code == value.CodeCmdFailed {
			if st, ok := e.Status.(value.Int); ok && st >= 1 && st <= 255 {
				return int(st)
			}
		}
		return 1
	}
	if o, ok := v.(*value.Outcome); ok && !o.Ok() {
		if o.Status != nil && *o.Status > 0 && *o.Status <= 255 {
			return *o.Status
		}
		return 1
	}
	return 0
}

// PassThrough returns the bytes a builtin passed through (cat's file
// content: an outcome whose output is bytes), which a script or -c prints
// exactly as they are, no newline added, rather than as a displayed value.
func PassThrough(v value.Value) ([]byte, bool) {
	o, ok := v.(*value.Outcome)
	if !ok || !o.Builtin {
		return nil, false
	}
	b, ok := o.Out.(value.Bytes)
	return []byte(b), ok
}

// Printable reports whether the final value of prog should be displayed:
// not null (nor a builtin's outcome holding null), and not the outcome of
// an external command or interpreter
// block in the final statement, whose output already went to the terminal
// (a builtin's outcome there, or any captured outcome, is displayed).
func Printable(r *eval.Registry, p *syntax.Program, v value.Value) bool {
	if v == nil || v.Kind() == value.KNull {
		return false
	}
	o, ok := v.(*value.Outcome)
	if ok && o.Builtin && (o.Out == nil || o.Out.Kind() == value.KNull) {
		return false // a builtin that answered nothing (sleep)
	}
	if hidden(r, p) {
		return false // save: what it wrote went to the file
	}
	if !ok || o.Builtin || len(p.Stmts) == 0 {
		return true
	}
	es, ok := p.Stmts[len(p.Stmts)-1].(*syntax.ExprStmt)
	if !ok {
		return true
	}
	switch es.X.(type) {
	case *syntax.Cmd, *syntax.LangBlock:
		return false
	}
	return true
}

// hidden reports whether p ends in a command whose result a statement does
// not show (Registry.HidesResult: cd, save).
func hidden(r *eval.Registry, p *syntax.Program) bool {
	if r == nil || p == nil || len(p.Stmts) == 0 {
		return false
	}
	es, ok := p.Stmts[len(p.Stmts)-1].(*syntax.ExprStmt)
	if !ok {
		return false
	}
	c, ok := es.X.(*syntax.Cmd)
	if !ok || c.Call == nil || c.Call.Head == nil || c.Call.Forced || c.Call.Head.Kind != syntax.ArgWord {
		return false
	}
	return r.HidesResult(c.Call.Head.Text)
}

// registry is the registry the display consults: Registry, else Interp's.
func (cfg *Config) registry() *eval.Registry {
	if cfg.Registry != nil || cfg.Interp == nil {
		return cfg.Registry
	}
	return cfg.Interp.Registry()
}
