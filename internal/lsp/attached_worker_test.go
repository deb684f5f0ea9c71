package lsp_test

import (
	"bufio"
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/lsp"
	"github.com/shoalgo/shoal/internal/lsp/protocol"
	"github.com/shoalgo/shoal/internal/stdlib"
)

// policySession is an attached session whose policy refuses any source
// that writes `forbidden`, binds `deploys`, and counts the verdicts asked.
// With stall set, every verdict waits for its call's time bound.
type policySession struct {
	asked   atomic.Int32
	stall   bool
	stalled chan struct{} // closed when a stalled verdict gave up
	once    sync.Once
}

func (p *policySession) Complete(_ context.Context, src string, cursor int) ([]complete.Candidate, error) {
	word := src[strings.LastIndexAny(src[:cursor], " \n")+1 : cursor]
	if word == "" || !strings.HasPrefix("deploys", word) {
		return nil, nil
	}
	c := complete.Candidate{Label: "deploys", Kind: complete.KindVariable, Detail: "list"}
	c.Replace.Start, c.Replace.End = int32(cursor-len(word)), int32(cursor)
	return []complete.Candidate{c}, nil
}

func (p *policySession) Effects(context.Context, string) ([]string, error) { return nil, nil }

func (p *policySession) Verdict(ctx context.Context, src string) (lsp.Verdict, error) {
	p.asked.Add(1)
	if p.stall {
		<-ctx.Done()
		p.once.Do(func() { close(p.stalled) })
		return lsp.Verdict{}, ctx.Err()
	}
	if strings.Contains(src, "forbidden") {
		return lsp.Verdict{Verdict: "deny", Reasons: []string{"fs_write /forbidden: no fs.write grant matches"}}, nil
	}
	return lsp.Verdict{Verdict: "allow"}, nil
}

func serveInProcess(t *testing.T, k lsp.Kernel) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		_ = lsp.Serve(context.Background(), inR, outW, lsp.Options{Registry: stdlib.Registry(), Kernel: k})
	}()
	c := &client{t: t, in: inW, w: protocol.NewWriter(inW), inbox: newInbox(), diags: map[string]protocol.PublishDiagnosticsParams{}}
	go c.inbox.drain(protocol.NewReader(bufio.NewReaderSize(outR, 1<<16)))
	t.Cleanup(func() { inW.Close() })
	c.call("initialize", map[string]any{}, nil)
	return c
}

// Each statement is explained once however often the document changes
// around it, and the verdicts follow the edits (the worker runs beside
// the server's loop: run with -race).
func TestAttachedVerdictsCachedByStatement(t *testing.T) {
	k := &policySession{}
	c := serveInProcess(t, k)
	uri := "file:///w/a.shl"
	c.open(uri, "touch /forbidden\nls /tmp\n")
	got := c.waitDiagnostics(uri, func(ds []protocol.Diagnostic) bool { return len(byCode(ds, "policy_denied")) == 1 })
	if d := byCode(got, "policy_denied")[0]; d.Range.Start.Line != 0 || !strings.Contains(d.Message, "fs_write /forbidden") {
		t.Errorf("policy_denied: %+v", d)
	}
	asked := k.asked.Load()
	if asked != 2 {
		t.Errorf("%d verdicts asked for two statements", asked)
	}
	for v := 2; v < 12; v++ {
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []map[string]any{{"text": "ls /tmp\n" + strings.Repeat("\n", v) + "touch /forbidden\n"}}})
	}
	c.waitDiagnostics(uri, func(ds []protocol.Diagnostic) bool {
		d := byCode(ds, "policy_denied")
		return len(d) == 1 && d[0].Range.Start.Line == 12
	})
	if n := k.asked.Load(); n != asked {
		t.Errorf("moving the statements asked %d more verdicts", n-asked)
	}
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 12},
		"contentChanges": []map[string]any{{"text": "deploys.len()\n"}}})
	c.waitDiagnostics(uri, func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })
}

// A kernel that answers no verdict in time holds nothing up: the
// document's diagnostics are published and completion answers (with the
// session's names) while the verdict is outstanding; once the call's time
// bound ends it, the server is unattached: completion from the document
// alone, the session's name unknown again, no verdicts.
func TestAttachedStalledKernel(t *testing.T) {
	k := &policySession{stall: true, stalled: make(chan struct{})}
	c := serveInProcess(t, k)
	uri := "file:///w/b.shl"
	c.open(uri, "touch /forbidden\nlet n = 1\nn.lenn()\ndep\n")
	if d := c.diagnostics(uri); len(byCode(d, "unknown_method")) != 1 {
		t.Fatalf("the document's diagnostics while the kernel stalls: %+v", d)
	}
	labels := func() []string {
		var list protocol.CompletionList
		c.call("textDocument/completion", at(uri, 3, 3), &list)
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Label)
		}
		return out
	}
	if l := labels(); !slices.Contains(l, "deploys") {
		t.Fatalf("completion while a verdict is outstanding: %v", l)
	}
	<-k.stalled
	// The guard marks the kernel down right after the call returns.
	for slices.Contains(labels(), "deploys") {
	}
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{"text": "touch /forbidden\ndeploys.len()\n"}}})
	d := c.diagnostics(uri)
	if len(byCode(d, "unknown_name")) != 1 || len(byCode(d, "policy_denied")) != 0 {
		t.Errorf("diagnostics with the kernel down: %+v", d)
	}
	if n := k.asked.Load(); n != 1 {
		t.Errorf("%d verdicts asked of a kernel that stalled once", n)
	}
}
