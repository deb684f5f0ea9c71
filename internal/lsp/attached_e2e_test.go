package lsp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	kclient "github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/diewithparent"
	"github.com/shoalgo/shoal/internal/lsp"
	"github.com/shoalgo/shoal/internal/lsp/protocol"
)

// kernelBin builds shoal-kernel once, for the tests that attach to one,
// beside the shoal binary (whose directory TestMain removes).
var kernelBin = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(filepath.Dir(shoalBin), "shoal-kernel")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/shoalgo/shoal/cmd/shoal-kernel")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building shoal-kernel: %v\n%s", err, out)
	}
	return bin, nil
})

// policyKernel is a shoal-kernel on a temp socket whose policy gives the
// token principal agent:ed its working directory, with auto_apply
// "reversible" (so a creation there needs approval).
type policyKernel struct {
	sock, work, base, token string
	cmd                     *exec.Cmd
	exited                  chan struct{}
}

func startPolicyKernel(t *testing.T) *policyKernel {
	t.Helper()
	bin, err := kernelBin()
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp("", "lspk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	base, _ = filepath.EvalSymlinks(base)
	k := &policyKernel{sock: filepath.Join(base, "k.sock"), work: filepath.Join(base, "work"), base: base, exited: make(chan struct{})}
	state := filepath.Join(base, "state")
	for _, d := range []string{k.work, state} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	pol := filepath.Join(base, "policy.toml")
	text := fmt.Sprintf(`[principal."agent:ed"]
session_write = true
auto_apply = "reversible"
opaque = "ask"
[principal."agent:ed".fs]
read = [%[1]q]
write = [%[1]q]
delete = [%[1]q]
`, k.work+"/**")
	if err := os.WriteFile(pol, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(state, "tokens.json")
	if _, k.token, err = auth.Open(store).Create("agent:ed", "agent", nil, 0); err != nil {
		t.Fatal(err)
	}
	k.cmd = exec.Command(bin, "--socket", k.sock, "--state-dir", state, "--policy", pol)
	k.cmd.Dir = k.work
	k.cmd.SysProcAttr = diewithparent.Attr()
	k.cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin", "TMPDIR=" + base, "XDG_RUNTIME_DIR=" + base,
		"SHOAL_TOKEN_STORE=" + store}
	stderr, err := k.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := k.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = k.cmd.Wait(); close(k.exited) }()
	t.Cleanup(func() { _ = k.cmd.Process.Kill(); <-k.exited })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if !sent && strings.HasPrefix(sc.Text(), "shoal-kernel: ready ") {
				ready <- true
				sent = true
			}
		}
		if !sent {
			ready <- false
		}
	}()
	if !<-ready {
		t.Fatal("shoal-kernel ended before its ready line")
	}
	return k
}

// kill ends the kernel and waits until it is gone.
func (k *policyKernel) kill() {
	_ = k.cmd.Process.Kill()
	<-k.exited
}

// waitDiagnostics reads what the server sends until the latest
// diagnostics for uri satisfy ok (attached mode publishes a version again
// once the session has answered), and returns them. A server that never
// publishes them is killed after a minute, so the test fails instead of
// hanging.
func (c *client) waitDiagnostics(uri string, ok func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	c.t.Helper()
	stuck := time.AfterFunc(time.Minute, func() {
		c.t.Errorf("no diagnostics for %s satisfied the test within a minute; giving up", uri)
		if c.cmd != nil {
			_ = c.cmd.Process.Kill()
		}
		c.inbox.fail(io.EOF)
	})
	defer stuck.Stop()
	for {
		c.mu.Lock()
		p, have := c.diags[uri]
		c.mu.Unlock()
		if have && ok(p.Diagnostics) {
			return p.Diagnostics
		}
		m := c.read()
		if m.Method != "" {
			c.keep(m)
		}
	}
}

func byCode(diags []protocol.Diagnostic, code string) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, d := range diags {
		if d.Code == code {
			out = append(out, d)
		}
	}
	return out
}

// TestAttachedPolicyAndSession drives the built `shoal lsp --kernel`
// against a real kernel whose policy refuses a write outside the
// principal's directory and holds a creation inside it for approval: the
// first statement gets a policy_denied error, the second a
// policy_approval warning, an allowed one nothing; names the session
// bound (a `let` and a `fn` run there before) are neither unknown_name
// nor unknown_command, are completed (beside the document's own names)
// and hovered with their type. Once the kernel dies the server is
// unattached: the same document gets exactly the unattached diagnostics,
// and completion comes from the document.
func TestAttachedPolicyAndSession(t *testing.T) {
	k := startPolicyKernel(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kc, err := kclient.Dial(ctx, k.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	if _, err := kc.Attach(ctx, kclient.AttachParams{Session: "ed", Token: k.token}); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"let deploys = [1, 2, 3]", "fn ship() { 1 }"} {
		if _, err := kc.Exec(ctx, kclient.ExecParams{Src: src}); err != nil {
			t.Fatalf("exec %s: %v", src, err)
		}
	}

	outside := filepath.Join(k.base, "outside.txt")
	inside := filepath.Join(k.work, "inside.txt")
	text := fmt.Sprintf("let mine = deploys.len()\ntouch %s\ntouch %s\nls %s\nship\n", outside, inside, k.work)
	uri := "file://" + filepath.Join(k.work, "a.shl")

	unattached := startServer(t)
	unattached.open(uri, text)
	want := unattached.diagnostics(uri)
	if len(byCode(want, "unknown_name")) != 1 || len(byCode(want, "unknown_command")) != 1 {
		t.Fatalf("unattached diagnostics: %+v (want deploys and ship unknown)", want)
	}
	unattached.stop()

	c := startServer(t, "--kernel", k.sock, "--session", "ed", "--token", k.token)
	c.open(uri, text)
	got := c.waitDiagnostics(uri, func(ds []protocol.Diagnostic) bool {
		return len(byCode(ds, "policy_denied")) > 0 && len(byCode(ds, "policy_approval")) > 0
	})
	denied, approval := byCode(got, "policy_denied"), byCode(got, "policy_approval")
	if len(denied) != 1 || denied[0].Range.Start.Line != 1 || denied[0].Severity != protocol.SeverityError ||
		!strings.Contains(denied[0].Message, "fs_write "+outside) {
		t.Errorf("policy_denied: %+v", denied)
	}
	if len(approval) != 1 || approval[0].Range.Start.Line != 2 || approval[0].Severity != protocol.SeverityWarning ||
		!strings.Contains(approval[0].Message, "auto_apply") {
		t.Errorf("policy_approval: %+v", approval)
	}
	got = c.waitDiagnostics(uri, func(ds []protocol.Diagnostic) bool {
		return len(byCode(ds, "unknown_name")) == 0 && len(byCode(ds, "unknown_command")) == 0
	})
	if len(got) != 2 {
		t.Errorf("attached diagnostics: %+v (want the two policy ones alone)", got)
	}
	if _, err := os.Lstat(outside); err == nil {
		t.Error("a diagnostic ran the statement")
	}
	if _, err := os.Lstat(inside); err == nil {
		t.Error("a diagnostic ran the statement")
	}

	// Completion knows the session's bindings and the document's; hover
	// the session binding's type.
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{"text": text + "dep\nmi\n"}}})
	labels := func(line, char int) []string {
		var list protocol.CompletionList
		c.call("textDocument/completion", at(uri, line, char), &list)
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Label)
		}
		return out
	}
	if l := labels(5, 3); !slices.Contains(l, "deploys") {
		t.Errorf("completing `dep` attached: %v", l)
	}
	if l := labels(6, 2); !slices.Contains(l, "mine") {
		t.Errorf("completing `mi` attached (the document's name): %v", l)
	}
	var h *protocol.Hover
	c.call("textDocument/hover", at(uri, 0, 12), &h)
	if h == nil || !strings.Contains(h.Contents.Value, "deploys: list") {
		t.Errorf("hover of the session binding: %+v", h)
	}

	// The kernel dies: completion falls back to the document, and the
	// next version's diagnostics are the unattached ones.
	k.kill()
	if l := labels(6, 2); !slices.Contains(l, "mine") || slices.Contains(l, "deploys") {
		t.Errorf("completing `mi` with the kernel gone: %v", l)
	}
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 3},
		"contentChanges": []map[string]any{{"text": text}}})
	got = c.diagnostics(uri)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("diagnostics with the kernel gone:\n got %+v\nwant %+v", got, want)
	}
	c.stop()
}

// TestAttachedBounds crosses attached mode's bounds tenfold through the
// built binaries: a document of ten times MaxJudgedStatements statements
// gets a verdict on its first refused statement and none past the bound,
// a statement ten times MaxExplainSource is not sent to explain, and the
// server and the kernel stay up and keep answering.
func TestAttachedBounds(t *testing.T) {
	k := startPolicyKernel(t)
	c := startServer(t, "--kernel", k.sock, "--session", "ed", "--token", k.token)
	outside := filepath.Join(k.base, "outside.txt")
	var b strings.Builder
	fmt.Fprintf(&b, "touch %s\n", outside)
	for range 10*lsp.MaxJudgedStatements - 1 {
		b.WriteString("1\n")
	}
	fmt.Fprintf(&b, "touch %s\n", outside) // statement 10×MaxJudgedStatements: past the bound
	fmt.Fprintf(&b, "touch %s \"%s\"\n", outside, strings.Repeat("a", 10*lsp.MaxExplainSource))
	uri := "file://" + filepath.Join(k.work, "big.shl")
	c.open(uri, b.String())
	got := c.waitDiagnostics(uri, func(ds []protocol.Diagnostic) bool { return len(byCode(ds, "policy_denied")) > 0 })
	denied := byCode(got, "policy_denied")
	if len(denied) != 1 || denied[0].Range.Start.Line != 0 {
		t.Errorf("policy_denied past the bounds: %d, first %+v (want line 0 alone)", len(denied), denied[0].Range)
	}
	var h *protocol.Hover
	c.call("textDocument/hover", at(uri, 0, 1), &h)
	if h == nil || !strings.Contains(h.Contents.Value, outside) {
		t.Errorf("hover after the bounds: %+v", h)
	}
	c.stop()
	select {
	case <-k.exited:
		t.Fatal("the kernel died")
	default:
	}
}

// fail ends the inbox: reads after what is queued get err.
func (b *inbox) fail(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		b.err = err
	}
	b.cond.Broadcast()
}
