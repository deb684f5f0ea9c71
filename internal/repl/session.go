package repl

import (
	"context"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Session is what the loop evaluates statements in: a local interpreter
// (Local) or a session of a running kernel (the shoal command's --kernel).
// The loop parses each statement itself, to know when input is complete
// and what to display; the session runs it.
type Session interface {
	// IsBound reports whether name is value-bound in the session, so a
	// bare identifier at a statement head parses as an expression.
	IsBound(name string) bool
	// Eval runs one complete statement: src is its text, prog its parse.
	Eval(ctx context.Context, src string, prog *syntax.Program) (value.Value, error)
	// ExitRequested reports an `exit` the session has run, and its status.
	ExitRequested() (int, bool)
}

// Local is a Session over an interpreter in this process.
type Local struct{ *eval.Interp }

// Eval runs prog in the interpreter.
func (l Local) Eval(ctx context.Context, src string, prog *syntax.Program) (value.Value, error) {
	return l.EvalProgramWith(ctx, prog, eval.RunOptions{Source: src})
}

// JobReporter is a session that reports its jobs (eval.Interp, with
// Options.KeepJobOutput): what each wrote since the last prompt, and which
// have ended. The loop asks before each prompt.
type JobReporter interface {
	JobReports() []eval.JobReport
}

// session is the loop's session: cfg.Session, else the local Interp.
func (cfg *Config) session() Session {
	if cfg.Session != nil {
		return cfg.Session
	}
	return Local{cfg.Interp}
}
