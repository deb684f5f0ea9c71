package host

import (
	"context"
	"fmt"
	"os"

	"github.com/shoalgo/shoal/internal/sandbox"
	"golang.org/x/sys/unix"
)

// WithSandbox makes every process this host starts (Run, captured or
// streaming, and RunTerminal: commands, background tasks, interpreter
// blocks, interactive programs) run under the OS sandbox rules returns,
// through sandbox.Command: Landlock confines the program and everything it
// starts to the rules' filesystem roots and TCP ports. rules is called
// once per spawn, after proc_spawn is allowed, and must be safe for
// concurrent use. Hermetic rules this machine cannot enforce fail the
// spawn with the sandbox's *UnenforceableError, and nothing runs. A host
// built without WithSandbox (the owner's) spawns programs unconfined.
func WithSandbox(rules func() sandbox.Rules) Option {
	return func(o *OS) { o.sandbox = rules }
}

// confine returns the program to start, its argv and its environment
// for running argv (whose argv[0] is prog) with env under the host's
// sandbox: prog, argv and env themselves when there is none or it
// restricts nothing. The environment is hidden from the trampoline (see
// sandbox.Command) and restored for the program. A program that cannot
// be executed fails here as the unconfined fork/exec would, rather than
// as the trampoline's exit status.
func (o *OS) confine(prog string, argv, env []string) (string, []string, []string, error) {
	if o.sandbox == nil {
		return prog, argv, env, nil
	}
	w, wenv, err := sandbox.Command(o.sandbox(), argv, env)
	if err != nil {
		return "", nil, nil, fmt.Errorf("run %s: %w", prog, err)
	}
	if len(w) == len(argv) {
		return prog, argv, env, nil
	}
	if err := unix.Access(prog, unix.X_OK); err != nil {
		return "", nil, nil, fmt.Errorf("run: %w", &os.PathError{Op: "fork/exec", Path: prog, Err: err})
	}
	return w[0], w, wenv, nil
}

// prepareSpawn is what every way of starting s begins with: proc_spawn
// asked of the gate (the resolved program), a cancelled ctx refused, the
// environment exactly s.Env (nil means empty), and the command wrapped in
// the host's OS sandbox.
func (o *OS) prepareSpawn(ctx context.Context, s *Spawn) (prog, path string, argv, env []string, err error) {
	if prog, err = o.checkSpawn(ctx, s); err != nil {
		return "", "", nil, nil, err
	}
	if err = ctx.Err(); err != nil {
		return "", "", nil, nil, err
	}
	env = s.Env
	if env == nil {
		env = []string{}
	}
	path, argv, env, err = o.confine(prog, s.Argv, env)
	return prog, path, argv, env, err
}
