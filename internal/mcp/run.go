package mcp

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/shoalgo/shoal/client"
	buildversion "github.com/shoalgo/shoal/internal/version"
)

// Usage is the help text of shoal-mcp (and shoal mcp).
const Usage = `usage: shoal-mcp [--http ADDR [--state-dir DIR]] [--socket PATH] [--session NAME] [--token TOKEN]
                 [--kernel PATH] [--no-autostart] [--approver-token TOKEN] [--approval-wait DURATION]
       shoal-mcp --version

Serves the Model Context Protocol on stdin/stdout for one MCP client (a
coding agent, a desktop assistant), on top of a Shoal kernel.

  --socket=PATH     the kernel's socket (default $SHOAL_SOCKET, else the
                    session's default socket)
  --session=NAME    the kernel session to attach to (default $SHOAL_SESSION,
                    else "default")
  --token=TOKEN     attach as the token's principal (default $SHOAL_TOKEN;
                    without one, as the kernel owner's local principal)
  --kernel=PATH     the shoal-kernel binary to start when no kernel answers
                    (default: beside this program, else on PATH)
  --no-autostart    fail instead of starting a kernel (also when
                    $SHOAL_NO_AUTOSTART is not empty)
  --approver-token=TOKEN
                    the person at the client, who approves plans (default
                    $SHOAL_APPROVER_TOKEN): a call held for approval asks
                    them through elicitation and, on accept, approves as
                    the token's principal and runs in the same call
  --approval-wait=DURATION
                    how long such a question waits for an answer (default
                    5m); with none, nothing runs
  --http=ADDR       serve Streamable HTTP at /mcp on ADDR instead of stdio:
                    127.0.0.1:PORT, [::1]:PORT or unix:/path. Every request
                    carries Authorization: Bearer TOKEN (from shoal-token)
                    and runs as that token's principal
  --state-dir=DIR   with --http, the state directory whose tokens.json
                    holds the tokens, as shoal-kernel's (default: the
                    kernel's; $SHOAL_TOKEN_STORE overrides both)

When no kernel answers at the socket, shoal-mcp starts its own there, says
so on stderr, and stops it when it exits. It reconnects and re-attaches if
the kernel restarts, restoring its subscriptions. Logs go to stderr.
`

// LimitProcessMemory gives the facade process its soft memory limit
// (SoftMemoryLimit) unless the GOMEMLIMIT environment variable sets one.
// The binaries that serve MCP (shoal-mcp, shoal mcp) call it first; Main
// does not, so a test that calls Main in its own process keeps its own.
func LimitProcessMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(SoftMemoryLimit)
	}
}

// mainOptions are shoal-mcp's flags.
type mainOptions struct {
	socket, session, token, kernelBin string
	http, stateDir                    string
	noStart, version                  bool
	approver                          string        // --approver-token
	approvalWait                      time.Duration // --approval-wait
}

// mainFlags is shoal-mcp's flag set, parsing into the options it returns;
// Usage describes each of its flags. It prints nothing itself.
func mainFlags() (*flag.FlagSet, *mainOptions) {
	o := &mainOptions{}
	fs := flag.NewFlagSet("shoal-mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.socket, "socket", os.Getenv("SHOAL_SOCKET"), "")
	session := os.Getenv("SHOAL_SESSION")
	if session == "" {
		session = "default"
	}
	fs.StringVar(&o.session, "session", session, "")
	fs.StringVar(&o.token, "token", os.Getenv("SHOAL_TOKEN"), "")
	fs.StringVar(&o.kernelBin, "kernel", "", "")
	fs.BoolVar(&o.noStart, "no-autostart", os.Getenv("SHOAL_NO_AUTOSTART") != "", "")
	fs.BoolVar(&o.version, "version", false, "")
	fs.StringVar(&o.approver, "approver-token", os.Getenv("SHOAL_APPROVER_TOKEN"), "")
	fs.DurationVar(&o.approvalWait, "approval-wait", ApprovalWait, "")
	fs.StringVar(&o.http, "http", "", "")
	fs.StringVar(&o.stateDir, "state-dir", "", "")
	return fs, o
}

// Main runs shoal-mcp with args (without the program name), serving MCP
// on stdin and stdout. It returns the exit status.
func Main(ctx context.Context, args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	fs, o := mainFlags()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, Usage)
			return 0
		}
		// One line saying what is wrong and the synopsis, not the whole
		// help.
		synopsis, _, _ := strings.Cut(Usage, "\n\n")
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			err = fmt.Errorf("unknown flag --%s", name)
		}
		fmt.Fprintf(stderr, "shoal-mcp: %v\n%s\nRun 'shoal-mcp --help' for more.\n", err, synopsis)
		return 2
	}
	if o.version {
		fmt.Fprintln(stdout, buildversion.Line("shoal-mcp"))
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "shoal-mcp: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if o.http != "" {
		return serveHTTP(ctx, o, stderr)
	}
	path := o.socket
	if path == "" {
		path = client.DefaultSocketPath(o.session)
	}
	c, k, err := connect(ctx, path, o.session, o.kernelBin, !o.noStart, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "shoal-mcp: %v\n", err)
		return 1
	}
	defer func() {
		c.Close()
		if k != nil {
			k.stop(stderr)
		}
	}()
	att, err := c.Attach(ctx, client.AttachParams{Session: o.session, Token: o.token, Client: &client.ClientInfo{Kind: "mcp"}})
	if err != nil {
		fmt.Fprintf(stderr, "shoal-mcp: attach to session %q: %v\n", o.session, err)
		return 1
	}
	fmt.Fprintf(stderr, "shoal-mcp: attached to session %q as %s on %s\n", att.Session, att.Principal, path)
	f, err := New(c, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "shoal-mcp: %v\n", err)
		return 1
	}
	f.path, f.attach = path, client.AttachParams{Session: o.session, Token: o.token, Client: &client.ClientInfo{Kind: "mcp"}}
	if code := setApprover(ctx, o, path, stderr); code != 0 {
		return code
	}
	if o.approver != "" {
		f.approval = approval{token: o.approver, wait: o.approvalWait, agent: att.Principal}
	}
	g := newGate(&lockedWriter{w: stdout}, MaxInFlightBytes)
	if err := f.Run(ctx, &stdio{g: g, in: stdin}); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "shoal-mcp: %v\n", err)
		return 1
	}
	return 0
}

// dialRaw dials the kernel's socket at path as the client does, and
// serves it by raw system calls (rawSocket).
func dialRaw(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	return rawSocket(nc), nil
}

// KernelCallWait is how long a tool call made while the kernel is away
// waits for the facade to reconnect before it answers kernel_unreachable;
// reconnecting goes on, and the next call waits again.
const KernelCallWait = 10 * time.Second

// kernelReconnect is the facade's reconnect policy: the client's default
// backoff, forever, with calls bounded by KernelCallWait.
var kernelReconnect = func() client.ReconnectPolicy {
	p := client.DefaultReconnectPolicy
	p.CallWait = KernelCallWait
	return p
}()

// connect dials the kernel at path, starting one there when none answers
// and start is set.
func connect(ctx context.Context, path, session, bin string, start bool, stderr io.Writer) (*client.Client, *kernelProc, error) {
	opts := []client.Option{client.WithReconnect(kernelReconnect), client.WithDialer(dialRaw)}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	c, err := client.Dial(dctx, path, opts...)
	cancel()
	if err == nil {
		return c, nil, nil
	}
	if !start {
		return nil, nil, fmt.Errorf("no kernel at %s: %w", path, err)
	}
	k, kerr := startKernel(ctx, bin, path, session, stderr)
	if kerr != nil {
		return nil, nil, fmt.Errorf("no kernel at %s (%v), and starting one failed: %w", path, err, kerr)
	}
	dctx, cancel = context.WithTimeout(ctx, 5*time.Second)
	c, err = client.Dial(dctx, path, opts...)
	cancel()
	if err != nil {
		k.stop(stderr)
		return nil, nil, fmt.Errorf("started a kernel at %s but cannot dial it: %w", path, err)
	}
	return c, k, nil
}

// kernelProc is a kernel this facade started.
type kernelProc struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// kernelBinary finds shoal-kernel: bin if given, else beside this
// program, else on PATH.
func kernelBinary(bin string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	if self, err := os.Executable(); err == nil {
		cand := filepath.Join(filepath.Dir(self), "shoal-kernel")
		if st, err := os.Stat(cand); err == nil && !st.IsDir() {
			return cand, nil
		}
	}
	return exec.LookPath("shoal-kernel")
}

// startKernel starts shoal-kernel on path and waits for its ready line.
// Its output goes to stderr (stdout carries MCP), each line prefixed.
func startKernel(ctx context.Context, bin, path, session string, stderr io.Writer) (*kernelProc, error) {
	bin, err := kernelBinary(bin)
	if err != nil {
		return nil, fmt.Errorf("find shoal-kernel: %w", err)
	}
	cmd := exec.Command(bin, "--socket", path, "--session", session)
	cmd.Env = kernelEnv(os.Environ())
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	// Its own process group: the MCP client's Ctrl-C is not the kernel's.
	// Pdeathsig: if shoal-mcp dies without stopping it (SIGKILL), the
	// kernel gets SIGTERM and ends its sessions' processes. The signal
	// follows the forking OS thread, so the kernel is started from a
	// goroutine locked to its thread that lives as long as the kernel.
	cmd.SysProcAttr = kernelProcAttr()
	k := &kernelProc{cmd: cmd, exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the kernel
		err := cmd.Start()
		started <- err
		if err == nil {
			_ = cmd.Wait()
		}
		close(k.exited)
	}()
	if err := <-started; err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	pw.Close()
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 4096), 64<<10)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintf(stderr, "shoal-mcp: kernel: %s\n", line)
			if !sent && strings.HasPrefix(line, "shoal-kernel: ready ") {
				close(ready)
				sent = true
			}
		}
		pr.Close()
	}()
	select {
	case <-ready:
	case <-k.exited:
		return nil, fmt.Errorf("%s exited before it was ready", bin)
	case <-time.After(AutostartReady):
		k.stop(stderr)
		return nil, fmt.Errorf("%s not ready after %v", bin, AutostartReady)
	case <-ctx.Done():
		k.stop(stderr)
		return nil, ctx.Err()
	}
	fmt.Fprintf(stderr, "shoal-mcp: no kernel answered at %s: started %s (pid %d) there; it stops when shoal-mcp exits\n", path, bin, cmd.Process.Pid)
	return k, nil
}

// stop ends the kernel: SIGTERM (it ends its sessions' processes), then
// SIGKILL if it is still there after 6 s (its own hard deadline is 4.5 s).
func (k *kernelProc) stop(stderr io.Writer) {
	_ = k.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.exited:
	case <-time.After(6 * time.Second):
		_ = k.cmd.Process.Kill()
		<-k.exited
	}
	fmt.Fprintf(stderr, "shoal-mcp: stopped the kernel it started (pid %d)\n", k.cmd.Process.Pid)
}
