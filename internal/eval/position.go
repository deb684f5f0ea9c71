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
}

// EvalProgramWith runs an already parsed program in the session scope like
// EvalProgram, with per-run position and output writers.
func (in *Interp) EvalProgramWith(ctx context.Context, p *syntax.Program, o RunOptions) (value.Value, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, done := in.begin(ctx)
	defer done()
	t := in.topThread(ctx)
	if o.Stdout != nil {
		t.stdout = o.Stdout
	}
	if o.Stderr != nil {
		t.stderr = o.Stderr
	}
	fm := modeFinal
	if o.Position == PositionValue {
		fm = modeValue
	}
	defer in.keepNav(t)
	v, err := t.runProgramFinal(p, in.root, fm)
	if err == nil && in.opts.REPL {
		in.record(v)
	}
	return v, end(ctx, err)
}
