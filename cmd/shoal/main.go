// Command shoal runs Shoal source standalone: `shoal -c SRC`, `shoal FILE`,
// or source piped on stdin. It evaluates with an allow-all host in the
// current directory, streams statement-position command output to the
// terminal, and prints the final value's display rendering. Errors are
// rendered with internal/diag on stderr. With no source and a terminal on
// stdin it runs the interactive REPL (internal/repl).
//
// Exit status: 0 on success; 1 for any parse or language error (an uncaught
// cmd_failed included: the child's own status is in the diagnostic); 2 for
// bad usage or an unreadable script; `exit N` gives N.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/shoalgo/shoal/internal/diag"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/repl"
	_ "github.com/shoalgo/shoal/internal/startstack" // grows main's stack once, first (its doc)
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
	buildversion "github.com/shoalgo/shoal/internal/version"
)

// shortUsage follows a usage error: the synopsis, and where the rest is.
const shortUsage = "usage: shoal [-c SOURCE | FILE [ARGS...]] [--kernel [SOCKET]] (shoal --help for everything)\n"

// usageHead and usageTail surround the subcommands' lines of usageText.
const usageHead = `usage: shoal                  (interactive, on a terminal)
       shoal -c SOURCE
       shoal FILE [ARGS...]      (the script sees ARGS as args)
       shoal < FILE
       shoal --kernel [SOCKET] [--session NAME] [--token TOKEN] [--keep-cwd] [-c SOURCE | FILE [ARGS...]]
                                (in a session of a running kernel, moved to this
                                directory unless --keep-cwd; default socket the
                                discovered one, session $SHOAL_SESSION or "default",
                                token $SHOAL_TOKEN)
       shoal --version
`

const usageTail = `
A first argument that names a subcommand runs it; a script of the same
name runs as ./NAME. A bare word (letters, digits and '-', no '.' or '/')
that names neither a subcommand nor an existing file is an error.

Runs Shoal source standalone and prints the final value, or reads
statements interactively: Ctrl-C abandons the line being typed or stops
the running statement, Ctrl-D on an empty line (or exit) leaves.
`

func main() {
	// Signals are taken over by mode (signals.go): SIGTERM as soon as run
	// knows it runs the REPL, a remote run or a subcommand, SIGINT too for
	// a remote run; a standalone script takes both over late
	// (scriptSignals). SIGINT stops a script, or only the running
	// statement of the REPL (interactive).
	ctx, stops := watchStops(context.Background())
	processStops = stops
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// cliFlags are the values of shoal's own flags.
type cliFlags struct {
	cmd     string
	version bool
	remote  remoteTarget
}

// newShoalFlags declares shoal's own flags (the completion scripts list
// them from here too).
func newShoalFlags() (*flag.FlagSet, *cliFlags) {
	var v cliFlags
	fs := flag.NewFlagSet("shoal", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // its errors are reported by the caller, one line each
	fs.Usage = func() {}
	fs.StringVar(&v.cmd, "c", "", "evaluate `SOURCE`")
	fs.StringVar(&v.cmd, "command", "", "evaluate `SOURCE`")
	fs.BoolVar(&v.version, "version", false, "print the version")
	fs.StringVar(&v.remote.Socket, "kernel", "", "run in a session of the kernel at `SOCKET`")
	fs.StringVar(&v.remote.Session, "session", os.Getenv("SHOAL_SESSION"), "the kernel session to attach to")
	fs.StringVar(&v.remote.Token, "token", os.Getenv("SHOAL_TOKEN"), "attach with a bearer token")
	fs.BoolVar(&v.remote.KeepCwd, "keep-cwd", false, "attach without moving the kernel session to this directory")
	return fs, &v
}

// run is the whole command, parameterised for tests.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if sub, ok := findSubcommand(args[0]); ok {
			ctx, stop := stopsNow(ctx, false)
			defer stop()
			return sub.Run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	fs, flags := newShoalFlags()
	cmd, showVersion, remote := &flags.cmd, &flags.version, &flags.remote
	args, discover := kernelFlag(args)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageText())
			return 0
		}
		fmt.Fprintf(stderr, "shoal: %v\n%s", err, shortUsage)
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, buildversion.Line("shoal"))
		return 0
	}

	name, src, err := source(fs, *cmd, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 2
	}
	if discover && remote.Socket == "" {
		remote.Socket = discoveredSocket(remote.Session)
	}
	remote.Style = value.Human // the REPL's comes from the user's render.* settings
	var target *remoteTarget
	if remote.Socket != "" {
		target = remote
	}
	if name == "" {
		remote.TTY = true
		ctx, stop := stopsNow(ctx, false)
		defer stop()
		return interactive(ctx, stdout, stderr, target)
	}
	var script string
	var scriptArgs []string
	if name != "-c" && name != "<stdin>" {
		script, scriptArgs = name, fs.Args()[1:]
	}
	if target != nil {
		ctx, stop := stopsNow(ctx, true)
		defer stop()
		return executeRemote(ctx, *remote, name, src, script, scriptArgs, stdout, stderr)
	}
	ctx, takeOver, stop := scriptSignals(ctx)
	defer stop()
	return execute(ctx, name, src, script, scriptArgs, takeOver, stdout, stderr)
}

// source picks the program text: -c, a script file, or piped stdin. An
// empty name means there is nothing to run (stdin is a terminal).
func source(fs *flag.FlagSet, cmd string, stdin io.Reader) (name, src string, err error) {
	commandSet := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "c" || f.Name == "command" {
			commandSet = true
		}
	})
	switch {
	case commandSet:
		if fs.NArg() > 0 {
			return "", "", fmt.Errorf("unexpected arguments after -c: %q", fs.Args())
		}
		return "-c", cmd, nil
	case fs.NArg() > 0:
		path := fs.Arg(0)
		data, err := os.ReadFile(path)
		if err != nil && scriptMissing(path) {
			return "", "", unknownSubcommand(path)
		}
		if err != nil {
			return "", "", err
		}
		return path, string(data), nil
	}
	if f, ok := stdin.(*os.File); ok && isTerminal(f) {
		return "", "", nil
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return "", "", fmt.Errorf("reading stdin: %w", err)
	}
	return "<stdin>", string(data), nil
}

// execute runs src in a fresh allow-all session rooted at the current
// directory and reports the outcome as the exit status the reference's
// CLI table gives: 0; a parse error 2; an uncaught cmd_failed the child's
// status when it is 1..255; any other error 1; `exit N` N. A script
// (script set) sees its arguments as `args`. takeOver, when set, is
// called by the host before anything that lasts outside the process
// (host.WithBeforeLasting): shoal takes its signals over there.
func execute(ctx context.Context, name, src, script string, scriptArgs []string, takeOver func(), stdout, stderr io.Writer) int {
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 1
	}
	tr := newCLITrust(stderr)
	cfg, err := languageConfig(dir, tr)
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 2
	}
	in, err := eval.New(eval.Options{Registry: registry(), Host: host.NewOS(host.AllowAll, host.WithBeforeLasting(takeOver)), Dir: dir, Stdout: stdout, Stderr: stderr,
		Script: script, Args: scriptArgs, Display: value.Human, Config: cfg, Reef: true,
		ProjectTrust: tr, TrustNotice: tr.notice, Adapters: sessionAdapters(stderr)})
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 1
	}
	prog, err := syntax.Parse(src, syntax.ParseOptions{IsBound: in.IsBound})
	if err != nil {
		fmt.Fprint(stderr, diag.FormatStyled(name, src, err, terminalDiagStyles(stderr)))
		return 2
	}
	v, err := in.EvalProgram(ctx, prog)
	if code, ok := in.ExitRequested(); ok {
		return code
	}
	if err != nil {
		fmt.Fprint(stderr, diag.FormatStyled(name, src, err, terminalDiagStyles(stderr)))
		return errorStatus(err)
	}
	if raw, ok := repl.PassThrough(v); ok {
		_, _ = stdout.Write(raw) // cat's bytes, exactly
	} else if repl.Printable(in.Registry(), prog, v) {
		fmt.Fprintln(stdout, value.DisplayStyled(v, 0, value.Human))
	}
	return 0
}

// errorStatus is the exit status of an uncaught error: a failed external
// command's own status when it is 1..255, else 1.
func errorStatus(err error) int { return repl.Status(nil, err) }
