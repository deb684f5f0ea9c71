package host

import (
	"context"
	"fmt"

	"github.com/shoalgo/shoal/internal/contain"
	"github.com/shoalgo/shoal/internal/sandbox"
)

// WithSandbox makes every process this host starts (Run, captured or
// streaming, RunTerminal and StartAttached: commands, background tasks,
// interpreter blocks, interactive programs) run under the OS sandbox rules
// returns: the child is forked from an OS thread of its own that
// sandbox.Confinement.Run has confined, so Landlock confines the program
// and everything it starts to the rules' filesystem roots and TCP ports.
// rules is called once per spawn, after proc_spawn is allowed, and must
// be safe for concurrent use. Hermetic rules this machine cannot enforce
// fail the spawn with the sandbox's *UnenforceableError, and nothing
// runs. A host built without WithSandbox (the owner's) spawns programs
// unconfined.
func WithSandbox(rules func() sandbox.Rules) Option {
	return func(o *OS) { o.sandbox = rules }
}

// confinement prepares the host's sandbox for one spawn of prog: nil when
// there is none or it restricts nothing this machine enforces. The caller
// forks on its thread (onThread) and closes it once the child has started.
func (o *OS) confinement(prog string) (*sandbox.Confinement, error) {
	if o.sandbox == nil {
		return nil, nil
	}
	c, err := sandbox.Prepare(o.sandbox())
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", prog, err)
	}
	return c, nil
}

// onThread is the thread a child confined by c is forked on: nil (the
// usual thread, unconfined) when c is nil.
func onThread(c *sandbox.Confinement) contain.Thread {
	if c == nil {
		return nil
	}
	return c.Run
}

// prepareSpawn is what every way of starting s begins with: proc_spawn
// asked of the gate (the resolved program), a cancelled ctx refused, the
// environment exactly s.Env (nil means empty), and the host's OS sandbox
// prepared (nil: none), which the caller closes once the child has
// started.
func (o *OS) prepareSpawn(ctx context.Context, s *Spawn) (prog string, conf *sandbox.Confinement, env []string, err error) {
	if prog, err = o.checkSpawn(ctx, s); err != nil {
		return "", nil, nil, err
	}
	if err = ctx.Err(); err != nil {
		return "", nil, nil, err
	}
	env = s.Env
	if env == nil {
		env = []string{}
	}
	conf, err = o.confinement(prog)
	return prog, conf, env, err
}
