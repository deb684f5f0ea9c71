package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/lsp/protocol"
)

// Incremental changes with UTF-16 ranges: an edit after a character
// outside the BMP (two UTF-16 units, four bytes) lands where the editor
// meant, and the diagnostics follow each version.
func TestIncrementalSync(t *testing.T) {
	c := startServer(t)
	uri := "file:///sync/a.shl"
	c.open(uri, "let s = \"😀é\"\ns.lenn()\n")
	if d := c.diagnostics(uri); len(d) != 1 || d[0].Code != "unknown_method" || d[0].Range.Start != (protocol.Position{Line: 1, Character: 2}) {
		t.Fatalf("diagnostics of version 1: %+v", d)
	}
	change := func(version int, r protocol.Range, text string) {
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": version},
			"contentChanges": []map[string]any{{"range": r, "text": text}}})
	}
	rng := func(l1, c1, l2, c2 uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
	}
	change(2, rng(1, 2, 1, 6), "len") // s.lenn() → s.len()
	if d := c.diagnostics(uri); len(d) != 0 {
		t.Fatalf("diagnostics of version 2: %+v", d)
	}
	// Line 0 is `let s = "😀é"`: 😀 is characters 9-10, é is 11. Insert
	// after é, then replace the emoji alone.
	change(3, rng(0, 12, 0, 12), "ü")
	change(4, rng(0, 9, 0, 11), "x")
	var h *protocol.Hover
	c.call("textDocument/hover", at(uri, 1, 0), &h)
	if h == nil || !strings.Contains(h.Contents.Value, "let s: str") {
		t.Fatalf("hover after edits: %+v", h)
	}
	// The server's text is what the editor has: a fresh document with the
	// same text gives the same outline and tokens.
	var syms []protocol.DocumentSymbol
	c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	if len(syms) != 1 || syms[0].Range.End != (protocol.Position{Line: 0, Character: 13}) {
		t.Fatalf("symbols after edits: %+v (want `let s = \"xéü\"` ending at 0:13)", syms)
	}
	change(5, rng(0, 0, 2, 0), "let 1 = 2\n")
	if d := c.diagnostics(uri); len(d) != 1 || d[0].Code != "parse_error" || !strings.Contains(d[0].Message, "hint:") {
		t.Fatalf("diagnostics of version 5: %+v", d)
	}
	c.stop()
}

// Path completion lists the document's directory.
func TestPathCompletion(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"notes.txt", "nested"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startServer(t)
	uri := "file://" + filepath.Join(dir, "s.shl")
	c.open(uri, "cat ./no\n")
	var list protocol.CompletionList
	c.call("textDocument/completion", at(uri, 0, 8), &list)
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	if !slices.Contains(labels, "./notes.txt") {
		t.Fatalf("path candidates %v", labels)
	}
	c.stop()
}

// Errors are typed and the server stays up: requests before initialize,
// unknown methods, bad params, documents not open, a bad rename.
func TestRequestErrors(t *testing.T) {
	c := startServer(t)
	cases := []struct {
		method string
		params any
		code   int
	}{
		{"textDocument/nonsense", map[string]any{}, protocol.CodeMethodNotFound},
		{"textDocument/hover", []int{1}, protocol.CodeInvalidParams},
		{"textDocument/hover", at("file:///not/open.shl", 0, 0), protocol.CodeInvalidParams},
	}
	for _, k := range cases {
		if err := c.callErr(k.method, k.params, nil); err == nil || err.Code != k.code {
			t.Errorf("%s %v: %+v, want code %d", k.method, k.params, err, k.code)
		}
	}
	c.open("file:///e/a.shl", "let a = 1\na + 1\n")
	params := at("file:///e/a.shl", 1, 0)
	params["newName"] = "1bad"
	if err := c.callErr("textDocument/rename", params, nil); err == nil || err.Code != protocol.CodeInvalidParams {
		t.Errorf("rename to 1bad: %+v", err)
	}
	c.stop()
}

// Each bound of the server crossed ten times through the binary: the
// caller gets a typed error and the server goes on answering.
func TestHostileBounds(t *testing.T) {
	c := startServer(t)
	alive := func(what string) {
		t.Helper()
		var syms []protocol.DocumentSymbol
		c.open("file:///h/alive.shl", "let ok = 1\n")
		c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": "file:///h/alive.shl"}}, &syms)
		if len(syms) != 1 {
			t.Fatalf("after %s: symbols %+v", what, syms)
		}
	}
	nullError := func(what string, code int) {
		t.Helper()
		m := c.read()
		if string(m.ID) != "null" || m.Error == nil || m.Error.Code != code {
			t.Fatalf("%s: got %+v, want an error %d for id null", what, m, code)
		}
	}

	// A frame ten times MaxFrameBytes: read past, not kept.
	big := 10 * protocol.MaxFrameBytes
	fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n", big)
	chunk := []byte(strings.Repeat(" ", 1<<20))
	for n := 0; n < big; n += len(chunk) {
		if _, err := c.in.Write(chunk[:min(len(chunk), big-n)]); err != nil {
			t.Fatal(err)
		}
	}
	nullError("a 80 MiB frame", protocol.CodeInvalidRequest)
	alive("a 80 MiB frame")

	// A header block ten times MaxHeaderBytes.
	fmt.Fprintf(c.in, "X-Pad: %s\r\n\r\n", strings.Repeat("p", 10*protocol.MaxHeaderBytes))
	nullError("an 80 KiB header", protocol.CodeInvalidRequest)
	alive("an 80 KiB header")

	// JSON nested ten times MaxJSONDepth.
	deep := strings.Repeat("[", 10*protocol.MaxJSONDepth) + strings.Repeat("]", 10*protocol.MaxJSONDepth)
	c.w.WriteMessage([]byte(`{"jsonrpc":"2.0","id":99,"method":"initialize","params":` + deep + `}`))
	nullError("640 levels of JSON", protocol.CodeInvalidRequest)
	alive("640 levels of JSON")

	// A document grown past ten times MaxDocumentBytes by incremental
	// changes (each frame within its bound): dropped, its requests fail,
	// a full change brings it back.
	uri := "file:///h/big.shl"
	c.open(uri, "let a = 1\n")
	const maxDoc = 4 << 20 // lsp.MaxDocumentBytes
	piece := strings.Repeat("# padding\n", (protocol.MaxFrameBytes/2)/10)
	for grown := 0; grown <= 10*maxDoc; grown += len(piece) {
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
			"contentChanges": []map[string]any{{"range": protocol.Range{}, "text": piece}}})
	}
	if d := c.diagnostics(uri); len(d) != 1 || d[0].Code != "too_large" {
		t.Fatalf("diagnostics of a 40 MiB document: %+v", d)
	}
	if err := c.callErr("textDocument/hover", at(uri, 0, 4), nil); err == nil || err.Code != protocol.CodeRequestFailed {
		t.Fatalf("hover in a dropped document: %+v", err)
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3},
		"contentChanges": []map[string]any{{"text": "let back = 1\n"}}})
	if d := c.diagnostics(uri); len(d) != 0 {
		t.Fatalf("diagnostics after the document shrank: %+v", d)
	}

	// Ten times MaxDocuments open documents: the ones past the bound are
	// refused (and said so), the others work.
	const maxDocs = 256 // lsp.MaxDocuments
	for i := range 10 * maxDocs {
		c.open(fmt.Sprintf("file:///h/many%d.shl", i), "let a = 1\n")
	}
	if err := c.callErr("textDocument/hover", at(fmt.Sprintf("file:///h/many%d.shl", 10*maxDocs-1), 0, 4), nil); err == nil || err.Code != protocol.CodeInvalidParams {
		t.Fatalf("hover in a refused document: %+v", err)
	}
	refused := 0
	for _, n := range c.notes {
		if n.Method == "window/showMessage" && strings.Contains(string(n.Params), "open documents") {
			refused++
		}
	}
	if refused == 0 {
		t.Fatalf("no message said documents were refused")
	}
	for i := range 10 * maxDocs {
		c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": fmt.Sprintf("file:///h/many%d.shl", i)}})
	}
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": "file:///h/alive.shl"}})
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})

	// Ten times MaxChangesPerNotification changes in one notification:
	// refused whole, the document unchanged.
	c.open("file:///h/changes.shl", "let a = 1\n")
	changes := make([]map[string]any, 10*4096)
	for i := range changes {
		changes[i] = map[string]any{"range": protocol.Range{}, "text": "x"}
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": "file:///h/changes.shl", "version": 2},
		"contentChanges": changes})
	var syms []protocol.DocumentSymbol
	c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": "file:///h/changes.shl"}}, &syms)
	if len(syms) != 1 || syms[0].Name != "a" {
		t.Fatalf("after 40,960 changes in one notification: %+v", syms)
	}
	alive("40,960 changes")
	c.stop()
}

// The Claude Code plugin's lspServers entry (plugin/.lsp.json) starts this
// server: its command and arguments are ones shoal accepts, for .shl.
func TestClaudePluginLSPEntry(t *testing.T) {
	b, err := os.ReadFile("../../plugin/.lsp.json")
	if err != nil {
		t.Fatal(err)
	}
	var servers map[string]struct {
		Command             string            `json:"command"`
		Args                []string          `json:"args"`
		ExtensionToLanguage map[string]string `json:"extensionToLanguage"`
	}
	if err := jsonUnmarshal(b, &servers); err != nil {
		t.Fatalf("plugin/.lsp.json: %v", err)
	}
	s, ok := servers["shoal"]
	if !ok || s.Command != "shoal" || len(s.Args) == 0 || s.Args[0] != "lsp" || s.ExtensionToLanguage[".shl"] != "shoal" {
		t.Fatalf("plugin/.lsp.json: %+v", servers)
	}
	c := startServer(t, s.Args[1:]...)
	c.stop()
}

// Ten times MaxDiagnostics unknown names: the first MaxDiagnostics are
// published and one more says the rest are not shown.
func TestDiagnosticsBound(t *testing.T) {
	const maxDiags = 500 // lsp.MaxDiagnostics
	var b strings.Builder
	for i := range 10 * maxDiags {
		fmt.Fprintf(&b, "[1].nosuchmethod%d()\n", i)
	}
	c := startServer(t)
	c.open("file:///d/many.shl", b.String())
	d := c.diagnostics("file:///d/many.shl")
	if len(d) != maxDiags+1 || d[maxDiags].Code != "too_many" || d[0].Code != "unknown_method" {
		t.Fatalf("%d diagnostics, the last %+v", len(d), d[len(d)-1])
	}
	c.stop()
}
