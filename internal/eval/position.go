package eval

import (
	"context"
	"io"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Position says how the final statement of a program runs.
type Position uint8

const (
	// PositionStmt runs the final statement like any other: a command's
	// output streams to the run's writers and a failed command raises.
	PositionStmt Position = iota
	// PositionValue runs the final statement in value position: a
	// command's output is captured into the outcome it returns.
	PositionValue
)

// RunOptions configures one EvalProgramWith call.
type RunOptions struct {
	// Position is the position of the program's final statement.
	Position Position
	// Stdout and Stderr receive statement-position command output for
	// this run; nil falls back to Options.Stdout and Options.Stderr.
	Stdout, Stderr io.Writer
	// Display, when set, is the style statement-position results print in
	// for this run in place of Options.Display: a kernel exec for a
	// person's terminal shows what the standalone shoal would.
	Display *value.Style
	// Started, when set, is called once the run holds the session lock,
	// before it parses and evaluates: the kernel lets the next request of
	// the session go on from there when this run is a background task.
	Started func()
	// Source, when set, is the text the program was parsed from: a job
	// started with `&` is described by what was typed (jobs, reports).
	Source string
}

// EvalProgramWith runs an already parsed program in the session scope like
// EvalProgram, with per-run position and output writers.
func (in *Interp) EvalProgramWith(ctx context.Context, p *syntax.Program, o RunOptions) (value.Value, error) {
	return in.run(ctx, func() (*syntax.Program, error) { return p, nil }, o)
}

// EvalSourceWith parses src against the session's bindings and runs it
// like EvalProgramWith, parsing under the session lock. A parse failure is
// a *syntax.Error.
func (in *Interp) EvalSourceWith(ctx context.Context, src string, o RunOptions) (value.Value, error) {
	if o.Source == "" {
		o.Source = src
	}
	return in.run(ctx, func() (*syntax.Program, error) {
		return syntax.Parse(src, syntax.ParseOptions{IsBound: in.isBound, REPL: in.opts.REPL})
	}, o)
}
