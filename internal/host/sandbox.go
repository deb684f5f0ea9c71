package host

import (
	"fmt"
	"os"

	"github.com/shoalgo/shoal/internal/sandbox"
	"golang.org/x/sys/unix"
)

// WithSandbox makes every process this host starts (Run, captured or
// streaming, and RunTerminal: commands, background tasks, interpreter
// blocks, interactive programs) run under the OS sandbox rules returns,
// through sandbox.Wrap: Landlock confines the program and everything it
// starts to the rules' filesystem roots and TCP ports. rules is called
// once per spawn, after proc_spawn is allowed, and must be safe for
// concurrent use. Hermetic rules this machine cannot enforce fail the
// spawn with the sandbox's *UnenforceableError, and nothing runs. A host
// built without WithSandbox (the owner's) spawns programs unconfined.
func WithSandbox(rules func() sandbox.Rules) Option {
	return func(o *OS) { o.sandbox = rules }
}

// confine returns the program to start and its argv for running argv
// (whose argv[0] is prog) under the host's sandbox: prog and argv
// themselves when there is none or it restricts nothing. A program that
// cannot be executed fails here as the unconfined fork/exec would, rather
// than as the trampoline's exit status.
func (o *OS) confine(prog string, argv []string) (string, []string, error) {
	if o.sandbox == nil {
		return prog, argv, nil
	}
	w, err := sandbox.Wrap(o.sandbox(), argv)
	if err != nil {
		return "", nil, fmt.Errorf("run %s: %w", prog, err)
	}
	if len(w) == len(argv) && w[0] == prog {
		return prog, argv, nil
	}
	if err := unix.Access(prog, unix.X_OK); err != nil {
		return "", nil, fmt.Errorf("run: %w", &os.PathError{Op: "fork/exec", Path: prog, Err: err})
	}
	return w[0], w, nil
}
