package lsp

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/complete"
)

// Verdict is what the attached session's policy says of running a source
// now, in explain's words: "allow", "approval_required" or "deny", with
// a reason for each effect not simply allowed. An empty Verdict says
// nothing (the kernel could not judge the source, say it does not parse).
type Verdict struct {
	Verdict string
	Reasons []string
}

// PolicyKernel is an attached Kernel that also tells the policy's
// verdict on a source (the kernel's explain). A Kernel without it gets no
// policy diagnostics.
type PolicyKernel interface {
	Verdict(ctx context.Context, src string) (Verdict, error)
}

// LiveKernel is an attached Kernel that can tell its connection is gone
// for good; the server then behaves as unattached.
type LiveKernel interface {
	Alive() bool
}

// ErrKernelAnswered marks an error a Kernel returns when the kernel
// answered the call with an error (a source it refuses, say): the
// connection is fine, so the kernel is not left alone for it.
var ErrKernelAnswered = errors.New("the kernel refused the call")

// errKernelDown is a call not made: the kernel is gone, or failed or
// answered too slowly a moment ago.
var errKernelDown = errors.New("the attached kernel is not answering; using the document alone")

// guardedKernel is the attached session as every feature asks it: each
// call within KernelCallTimeout, and none at all while the kernel is gone
// or for KernelRetryAfter after a call failed, so a slow or dead kernel
// degrades to the unattached behaviour instead of holding the editor.
// Safe for the server loop and the verdict worker at once.
type guardedKernel struct {
	k         Kernel
	mu        sync.Mutex
	downUntil time.Time
	failures  int // calls that failed, for the logs and tests
	onDown    func()
}

func (g *guardedKernel) usable() bool {
	if l, ok := g.k.(LiveKernel); ok && !l.Alive() {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return !time.Now().Before(g.downUntil)
}

// failed records a failed call: no calls for KernelRetryAfter, and what
// was learnt from the session forgotten.
func (g *guardedKernel) failed() {
	g.mu.Lock()
	g.downUntil = time.Now().Add(KernelRetryAfter)
	g.failures++
	onDown := g.onDown
	g.mu.Unlock()
	if onDown != nil {
		onDown()
	}
}

// guard runs call within the time bound, unless the kernel is down.
func guard[T any](g *guardedKernel, ctx context.Context, call func(context.Context) (T, error)) (T, error) {
	var zero T
	if !g.usable() {
		return zero, errKernelDown
	}
	ctx, cancel := context.WithTimeout(ctx, KernelCallTimeout)
	defer cancel()
	v, err := call(ctx)
	if err != nil {
		if !errors.Is(err, ErrKernelAnswered) {
			g.failed()
		}
		return zero, err
	}
	return v, nil
}

func (g *guardedKernel) Complete(ctx context.Context, src string, cursor int) ([]complete.Candidate, error) {
	return guard(g, ctx, func(ctx context.Context) ([]complete.Candidate, error) { return g.k.Complete(ctx, src, cursor) })
}

func (g *guardedKernel) Effects(ctx context.Context, src string) ([]string, error) {
	return guard(g, ctx, func(ctx context.Context) ([]string, error) { return g.k.Effects(ctx, src) })
}

// verdict asks the policy's verdict: none without a PolicyKernel, and
// none (no error) for a source the kernel refused to explain.
func (g *guardedKernel) verdict(ctx context.Context, src string) (Verdict, error) {
	pk, ok := g.k.(PolicyKernel)
	if !ok {
		return Verdict{}, nil
	}
	v, err := guard(g, ctx, func(ctx context.Context) (Verdict, error) { return pk.Verdict(ctx, src) })
	if errors.Is(err, ErrKernelAnswered) {
		return Verdict{}, nil
	}
	return v, err
}

// policyAware reports whether the kernel tells verdicts at all.
func (g *guardedKernel) policyAware() bool {
	_, ok := g.k.(PolicyKernel)
	return ok
}
