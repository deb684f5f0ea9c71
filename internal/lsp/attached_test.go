package lsp_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/lsp"
	"github.com/shoalgo/shoal/internal/lsp/protocol"
	"github.com/shoalgo/shoal/internal/stdlib"
)

// fakeSession stands for an attached kernel session that has bound
// `deploys` to a table.
type fakeSession struct{}

func (fakeSession) Complete(_ context.Context, src string, cursor int) ([]complete.Candidate, error) {
	c := complete.Candidate{Label: "deploys", Kind: complete.KindVariable, Detail: "table"}
	c.Replace.Start, c.Replace.End = int32(cursor-len("dep")), int32(cursor)
	if strings.HasSuffix(src[:cursor], "deploys") {
		c.Replace.Start = int32(cursor - len("deploys"))
	}
	return []complete.Candidate{c}, nil
}

func (fakeSession) Effects(context.Context, string) ([]string, error) {
	return []string{"`fs_read` /srv/session-dir"}, nil
}

// Attached (Options.Kernel), completion offers the session's bindings,
// hover shows a session binding's type and a command's effects as the
// session derives them.
func TestAttachedSession(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		_ = lsp.Serve(context.Background(), inR, outW, lsp.Options{Registry: stdlib.Registry(), Kernel: fakeSession{}})
	}()
	c := &client{t: t, in: inW, w: protocol.NewWriter(inW), inbox: newInbox(), diags: map[string]protocol.PublishDiagnosticsParams{}}
	go c.inbox.drain(protocol.NewReader(bufio.NewReaderSize(outR, 1<<16)))
	t.Cleanup(func() { inW.Close() })
	c.call("initialize", map[string]any{}, nil)
	uri := "file:///att/a.shl"
	c.open(uri, "let n = dep\ndeploys.len()\nls\n")
	var list protocol.CompletionList
	c.call("textDocument/completion", at(uri, 0, 11), &list)
	if len(list.Items) != 1 || list.Items[0].Label != "deploys" || list.Items[0].Detail != "table" {
		t.Fatalf("attached completion: %+v", list.Items)
	}
	var h *protocol.Hover
	c.call("textDocument/hover", at(uri, 1, 2), &h)
	if h == nil || !strings.Contains(h.Contents.Value, "deploys: table") {
		t.Fatalf("hover of a session binding: %+v", h)
	}
	c.call("textDocument/hover", at(uri, 2, 0), &h)
	if h == nil || !strings.Contains(h.Contents.Value, "/srv/session-dir") {
		t.Fatalf("hover of a command: %+v", h)
	}
}
