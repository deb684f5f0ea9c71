package main

// shoal lsp: the language server (internal/lsp) on standard input and
// output, with what it may not reach itself supplied here: the programs
// on PATH, directory listings, and with --kernel a live session.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/shoalgo/shoal/internal/format"
	"io"
	"os"
	"sync"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/lsp"
	buildversion "github.com/shoalgo/shoal/internal/version"
)

const lspUsage = `usage: shoal lsp [--kernel SOCKET [--session NAME] [--token TOKEN]]

A Language Server Protocol 3.17 server for Shoal sources (.shl, language
id "shoal") on standard input and output. With --kernel it attaches to a
running kernel's session: completion and hover know its live bindings, and
diagnostics say which statements its policy would refuse or hold for approval.
`

// runLSP is `shoal lsp`.
func runLSP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shoal lsp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, lspUsage) }
	socket := fs.String("kernel", "", "")
	session := fs.String("session", "default", "")
	token := fs.String("token", os.Getenv("SHOAL_TOKEN"), "")
	stdio := fs.Bool("stdio", true, "") // editors pass it; standard I/O is the only transport
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || !*stdio {
		fmt.Fprintf(stderr, "shoal lsp: unexpected arguments %q\n%s", fs.Args(), lspUsage)
		return 2
	}
	ctx := context.Background()
	home, _ := os.UserHomeDir()
	opts := lsp.Options{
		Registry:     registry(),
		PathCommands: pathCommands(),
		ReadDir:      os.ReadDir,
		Home:         home,
		Version:      buildversion.String(),
		Format:       format.Source,
	}
	if *socket != "" {
		k, err := dialLSPKernel(ctx, *socket, *session, *token)
		if err != nil {
			fmt.Fprintf(stderr, "shoal lsp: %v\n", err)
			return 1
		}
		defer k.c.Close()
		opts.Kernel = k
	}
	if err := lsp.Serve(ctx, stdin, stdout, opts); err != nil {
		fmt.Fprintln(stderr, "shoal lsp:", err)
		return 1
	}
	return 0
}

// pathCommands lists the programs on PATH once, when first asked.
func pathCommands() func() []string {
	return sync.OnceValue(func() []string {
		return complete.PathCommandNames(os.Getenv("PATH"), os.ReadDir)
	})
}

// lspKernel is an attached session as the language server asks it.
type lspKernel struct {
	c *client.Client
}

func dialLSPKernel(ctx context.Context, socket, session, token string) (*lspKernel, error) {
	ctx, cancel := context.WithTimeout(ctx, remoteDialTimeout)
	defer cancel()
	c, err := client.Dial(ctx, socket)
	if err != nil {
		return nil, fmt.Errorf("kernel %s: %w", socket, err)
	}
	if _, err := c.Attach(ctx, client.AttachParams{Session: session, Token: token, Client: &client.ClientInfo{Kind: "lsp"}}); err != nil {
		c.Close()
		return nil, fmt.Errorf("kernel %s: attach: %w", socket, err)
	}
	return &lspKernel{c: c}, nil
}

// The language server bounds each call in time (lsp.KernelCallTimeout)
// and stops asking a kernel that fails; an error the kernel answered
// with is marked lsp.ErrKernelAnswered, which does not count as failing.

func (k *lspKernel) Complete(ctx context.Context, src string, cursor int) ([]complete.Candidate, error) {
	res, err := k.c.Complete(ctx, src, cursor)
	if err != nil {
		return nil, lspCallErr(err)
	}
	out := make([]complete.Candidate, len(res.Candidates))
	for i, c := range res.Candidates {
		out[i] = complete.Candidate{Label: c.Label, Kind: c.Kind, Detail: c.Detail}
		out[i].Replace.Start, out[i].Replace.End = int32(c.Replace.Start), int32(c.Replace.End)
	}
	return out, nil
}

func (k *lspKernel) Effects(ctx context.Context, src string) ([]string, error) {
	res, err := k.c.Explain(ctx, src)
	if err != nil {
		return nil, lspCallErr(err)
	}
	out := make([]string, 0, len(res.Effects))
	for _, e := range res.Effects {
		out = append(out, lsp.EffectLine(string(e.Kind), e.Path, e.Program, e.Name))
	}
	return out, nil
}

// Verdict is the session policy's verdict on src, from explain.
func (k *lspKernel) Verdict(ctx context.Context, src string) (lsp.Verdict, error) {
	res, err := k.c.Explain(ctx, src)
	if err != nil {
		return lsp.Verdict{}, lspCallErr(err)
	}
	return lsp.Verdict{Verdict: res.Verdict, Reasons: res.Reasons}, nil
}

// Alive reports whether the connection to the kernel is still up.
func (k *lspKernel) Alive() bool {
	select {
	case <-k.c.Done():
		return false
	default:
		return true
	}
}

// lspCallErr marks an error the kernel answered with.
func lspCallErr(err error) error {
	if _, ok := client.ErrorCode(err); ok {
		return fmt.Errorf("%w: %w", lsp.ErrKernelAnswered, err)
	}
	return err
}
