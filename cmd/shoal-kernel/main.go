// Command shoal-kernel is the long-lived Shoal kernel: it serves JSON-RPC on
// a Unix socket until SIGINT or SIGTERM.
//
//	shoal-kernel [--socket PATH] [--session NAME] [--state-dir DIR] [--policy FILE] [-v] [LIMIT FLAGS]
//
// shoal-kernel --help lists every flag, by group, with its default (help.go).
//
// When listening it prints exactly one line of its own, "shoal-kernel: ready
// <socket path>", on stderr (the Go runtime may print a "SCHED" line of its
// scheduler's state before it: the kernel runs with GODEBUG's schedtrace set,
// package sysmon). On SIGINT or SIGTERM it stops accepting, cancels
// in-flight work, ends every process its sessions started, removes its
// socket and exits 0, within kernel.ShutdownDeadline whatever is running.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/shoalgo/shoal/internal/adapters"
	buildversion "github.com/shoalgo/shoal/internal/version"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/contain"
	"github.com/shoalgo/shoal/internal/kernel"
	"github.com/shoalgo/shoal/internal/memlimit"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/internal/sysmon"
)

func main() {
	// The binary doubles as its own supervisor.
	if len(os.Args) > 1 && os.Args[1] == contain.SupervisorCommand {
		os.Exit(contain.RunSupervisor(os.Args[2:]))
	}
	keepMonitorAwake = true
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// keepMonitorAwake makes run re-execute the binary once with the Go
// runtime's monitor kept from its deep sleep (package sysmon). Only main
// sets it: the tests that call run in process must not re-execute the
// test binary.
var keepMonitorAwake bool

type options struct {
	session, socket, stateDir, policy string
	verbose, version, noCgroups       bool
	// debuggable keeps the process dumpable (hideProcess not called).
	debuggable bool
	limits     kernel.Limits
	// memory is what the memory bounds' defaults were derived from;
	// memoryWarnings says which explicit ones were lowered to fit.
	memory         memlimit.Derived
	memoryWarnings []string
}

// newFlagSet is shoal-kernel's flag set, parsing into o; printHelp's
// groups name each of its flags. It prints nothing itself.
func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("shoal-kernel", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.session, "session", kernel.DefaultSession, "session name used to discover the socket path")
	fs.StringVar(&o.socket, "socket", "", "explicit socket path")
	fs.StringVar(&o.stateDir, "state-dir", "", "state directory (default $XDG_STATE_HOME/shoal or ~/.local/state/shoal)")
	fs.StringVar(&o.policy, "policy", "", "Leash policy TOML file")
	fs.BoolVar(&o.noCgroups, "no-cgroups", false, "contain processes without cgroups")
	fs.BoolVar(&o.debuggable, "debuggable", false, "leave the kernel's process open to same-user debuggers and /proc readers")
	fs.BoolVar(&o.verbose, "v", false, "log diagnostics to stderr")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	kernel.RegisterLimitFlags(fs, &o.limits)
	return fs
}

// parseFlags parses args. --help writes the help to stdout and returns
// flag.ErrHelp; any other error is the caller's to report.
func parseFlags(args []string, stdout io.Writer) (*options, error) {
	o := &options{limits: kernel.DefaultLimits()}
	fs := newFlagSet(o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(stdout, fs, memlimit.Derive(memlimit.Detect()))
			return nil, err
		}
		// The flag package names an unknown flag with one dash.
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			return nil, fmt.Errorf("unknown flag --%s", name)
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	// The memory bounds not set by flag come from this process's real
	// limits (RLIMIT_AS, its cgroup, physical memory).
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	o.memory = memlimit.Derive(memlimit.Detect())
	o.memoryWarnings = kernel.ApplyMemoryDefaults(&o.limits, func(name string) bool { return set[name] }, o.memory)
	return o, nil
}

// run is the whole command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stdout)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		// One line saying what is wrong, then the synopsis, not the
		// whole help.
		fmt.Fprintf(stderr, "shoal-kernel: %v\n%sRun 'shoal-kernel --help' for every flag.\n", err, shortUsage)
		return 2
	}
	if o.version {
		fmt.Fprintln(stdout, buildversion.Line("shoal-kernel"))
		return 0
	}
	// Before anything is opened or marked close-on-exec: the program is
	// run again, in this process, with what it inherited.
	if keepMonitorAwake {
		if err := sysmon.Apply(); err != nil {
			fmt.Fprintln(stderr, "shoal-kernel: warning: the runtime's monitor thread keeps its default:", err)
		}
	}
	for _, w := range o.memoryWarnings {
		fmt.Fprintln(stderr, "shoal-kernel: warning:", w)
	}
	if err := serve(o, stderr); err != nil {
		fmt.Fprintln(stderr, "shoal-kernel:", err)
		return 1
	}
	return 0
}

func serve(o *options, stderr io.Writer) error {
	// Nothing the kernel inherited passes to the commands it runs.
	if err := closeInheritedOnExec(); err != nil {
		return err
	}
	// Nor can a program running as the same user read the kernel's memory,
	// environment or descriptors through /proc or ptrace.
	if !o.debuggable {
		if err := hideProcess(); err != nil {
			return err
		}
	}
	// A socket handed over by systemd is taken first, before any process
	// is started that could inherit it.
	activated, err := activatedListener()
	if err != nil {
		return err
	}
	// An explicit policy that is missing or malformed is fatal, with the
	// file, line and column of the first problem; without one the owner
	// may do everything and every other principal nothing.
	var pol *policy.Policy
	if o.policy != "" {
		p, err := policy.Load(o.policy, os.Getenv("HOME"))
		if err != nil {
			return err // "policy FILE:LINE:COL: …"
		}
		pol = p
	}
	stateDir := o.stateDir
	if stateDir == "" {
		d, err := auth.DefaultStatePath()
		if err != nil {
			return err
		}
		stateDir = d
	}
	store, err := auth.ResolveStorePath(stateDir)
	if err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	path, err := kernel.SocketPath(o.socket, o.session, os.Getenv)
	if err != nil {
		return err
	}
	if activated != nil {
		path = activated.Addr().String()
	}
	level := slog.LevelError
	if o.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// Every process a session starts stays ours until it is ended: see
	// package contain, and kernel.info's containment for what is active.
	// --no-cgroups leaves the subreaper, the walk of descendants and the
	// supervisor (for machines whose cgroups misbehave, and to test that
	// containment holds without them).
	procs := contain.New(contain.Config{Subreaper: true, Cgroups: !o.noCgroups})
	if err := procs.StartSupervisor("/proc/self/exe"); err != nil {
		log.Warn("no supervisor: processes may outlive a killed kernel", "err", err)
	}
	defer procs.Close()
	// The journal and the blob store live in the state directory, which
	// must exist (0700) before New opens them.
	if err := auth.EnsureDir(stateDir); err != nil {
		return err
	}
	srv, err := kernel.New(kernel.Config{
		Version:    buildversion.String(),
		TokenStore: store,
		Dir:        cwd,
		Env:        os.Environ(),
		Log:        log,
		Limits:     &o.limits,
		Memory:     &o.memory,
		Policy:     pol,
		Processes:  procs,
		StateDir:   stateDir,
		Adapters:   kernelAdapters(log),
	})
	if err != nil {
		return err
	}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)

	l, ino, err := listen(activated, path, o.socket != "")
	if err != nil {
		return err
	}
	defer kernel.RemoveSocket(path, ino)
	fmt.Fprintf(stderr, "shoal-kernel: ready %s\n", path)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case <-sigs:
	case err := <-served:
		if !errors.Is(err, kernel.ErrServerClosed) {
			return err
		}
	}
	// Whatever is still running (work that cannot be cancelled, a stuck
	// handler), the process exits by the deadline; should its own timer
	// not run in time, the supervisor kills it a little later.
	procs.Deadline(kernel.ShutdownBackstop)
	hard := time.AfterFunc(kernel.ShutdownDeadline, func() {
		fmt.Fprintln(stderr, "shoal-kernel: shutdown deadline passed; killing what is left and exiting")
		procs.Kill()
		kernel.RemoveSocket(path, ino)
		os.Exit(0)
	})
	ctx, cancel := context.WithTimeout(context.Background(), kernel.ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && o.verbose {
		fmt.Fprintln(stderr, "shoal-kernel:", err)
	}
	procs.Close()
	hard.Stop()
	return nil
}

// kernelAdapters is the sessions' command-adapter catalog: the bundled
// set layered with the user's directory (adapters.UserDir), as the CLI
// loads it, so an agent's session adapts the commands a person's does.
// Problems with the user's files are logged; their valid siblings load.
func kernelAdapters(log *slog.Logger) *adapters.Catalog {
	c, problems := adapters.WithUser(os.Getenv, os.DirFS)
	for _, e := range problems {
		log.Warn("adapter file", "problem", e.Error())
	}
	return c
}

// listen binds the socket at path, or takes the activated one, whose
// inode is reported as 0 so that RemoveSocket leaves systemd's socket be.
func listen(activated *net.UnixListener, path string, explicit bool) (*net.UnixListener, uint64, error) {
	if activated != nil {
		return activated, 0, nil
	}
	l, err := kernel.Listen(path, explicit)
	if err != nil {
		return nil, 0, err
	}
	ino, err := kernel.SocketInode(path)
	if err != nil {
		l.Close()
		return nil, 0, fmt.Errorf("socket %s: %w", path, err)
	}
	return l, ino, nil
}
