package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/shoalgo/shoal/internal/lsp/protocol"
)

// The marker tests (gopls's are the model): each testdata/*.shl is opened
// in a built `shoal lsp`, and the markers in its comments say what the
// server must answer.
//
// A caret line, `#   ^ @name(args) @name(args)`, points with its `^` at
// the character in the same column (counted in characters) of the
// nearest line above that is not a caret line. A line starting `#@`
// holds file markers. The markers:
//
//	@mark(NAME)              names the position for the others
//	@complete(a, b, !c)      completion offers a and b, not c
//	@hover("text")           hover shows text
//	@diag(code, "text")      a diagnostic with code (and text) covers the position;
//	                         the file's diagnostics are exactly those its markers name
//	@fix("new")              a quick fix at the diagnostic there writes new
//	@def(NAME)               definition is at mark NAME
//	@refs(NAME, ...)         references (with the declaration) are at these marks
//	@rename(new, NAME, ...)  renaming to new edits exactly these marks
//	@sig("label", N)         signature help shows label, parameter N active
//	@tok(type)               the semantic token there has type
//	#@symbols(a, b)          the outline's top level, in order
//	#@format                 formatting is idempotent and keeps every comment
//	                         (skipped when the build offers no formatter)

var markerRe = regexp.MustCompile(`@(\w+)\(((?:"[^"]*"|[^)"])*)\)|@(\w+)`)

type marker struct {
	name string
	args []string
	line int // zero-based
	char int // UTF-16 units
	file bool
	text string // the marker as written, for messages
}

// parseMarkers reads the markers of src.
func parseMarkers(t *testing.T, src string) []marker {
	var out []marker
	lines := strings.Split(src, "\n")
	target := -1
	for i, l := range lines {
		trim := strings.TrimLeft(l, " \t")
		switch {
		case strings.HasPrefix(trim, "#@"):
			for _, m := range markerRe.FindAllStringSubmatch(trim, -1) {
				out = append(out, newMarker(m, i, 0, true))
			}
		case strings.HasPrefix(trim, "#") && strings.Contains(trim, "^") && strings.Trim(trim[:strings.Index(trim, "^")], "# \t") == "":
			if target < 0 {
				t.Fatalf("line %d: a caret line with no line above it", i+1)
			}
			col := len([]rune(l[:strings.Index(l, "^")]))
			runes := []rune(lines[target])
			if col > len(runes) {
				t.Fatalf("line %d: the caret is past the end of line %d", i+1, target+1)
			}
			char := len(utf16.Encode(runes[:col]))
			for _, m := range markerRe.FindAllStringSubmatch(l[strings.Index(l, "^"):], -1) {
				out = append(out, newMarker(m, target, char, false))
			}
		default:
			target = i
		}
	}
	return out
}

func newMarker(m []string, line, char int, file bool) marker {
	name, args := m[1], m[2]
	if name == "" {
		name = m[3]
	}
	var as []string
	for _, a := range splitArgs(args) {
		as = append(as, strings.Trim(strings.TrimSpace(a), `"`))
	}
	return marker{name: name, args: as, line: line, char: char, file: file, text: m[0]}
}

// splitArgs splits on commas outside double quotes.
func splitArgs(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func TestMarkers(t *testing.T) {
	files, err := filepath.Glob("testdata/*.shl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no marker files: %v", err)
	}
	c := startServer(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			c.t = t
			runMarkers(t, c, "file:///markers/"+filepath.Base(f), string(src))
		})
	}
	c.t = t
	c.stop()
}

func runMarkers(t *testing.T, c *client, uri, src string) {
	ms := parseMarkers(t, src)
	marks := map[string]protocol.Position{}
	for _, m := range ms {
		if m.name == "mark" {
			marks[m.args[0]] = protocol.Position{Line: uint32(m.line), Character: uint32(m.char)}
		}
	}
	markAt := func(m marker, name string) protocol.Position {
		p, ok := marks[name]
		if !ok {
			t.Fatalf("line %d: %s names no mark %q", m.line+1, m.text, name)
		}
		return p
	}
	c.open(uri, src)
	diags := c.diagnostics(uri)
	matched := make([]bool, len(diags))
	for _, m := range ms {
		where := fmt.Sprintf("line %d: %s", m.line+1, m.text)
		here := at(uri, m.line, m.char)
		p := protocol.Position{Line: uint32(m.line), Character: uint32(m.char)}
		switch m.name {
		case "mark":
		case "complete":
			var list protocol.CompletionList
			c.call("textDocument/completion", here, &list)
			var labels []string
			for _, it := range list.Items {
				labels = append(labels, it.Label)
			}
			for _, want := range m.args {
				if no, ok := strings.CutPrefix(want, "!"); ok {
					if slices.Contains(labels, no) {
						t.Errorf("%s: offered %q: %v", where, no, labels)
					}
				} else if !slices.Contains(labels, want) {
					t.Errorf("%s: %q not offered: %v", where, want, labels)
				}
			}
		case "hover":
			var h *protocol.Hover
			c.call("textDocument/hover", here, &h)
			if h == nil || !strings.Contains(h.Contents.Value, m.args[0]) {
				t.Errorf("%s: hover %+v", where, h)
			}
		case "diag":
			found := false
			for i, d := range diags {
				if d.Code == m.args[0] && covers(d.Range, p) && (len(m.args) < 2 || strings.Contains(d.Message, m.args[1])) {
					matched[i], found = true, true
				}
			}
			if !found {
				t.Errorf("%s: no such diagnostic among %+v", where, diags)
			}
		case "fix":
			var here []protocol.Diagnostic
			for _, d := range diags {
				if covers(d.Range, p) {
					here = append(here, d)
				}
			}
			var actions []protocol.CodeAction
			c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
				"range": protocol.Range{Start: p, End: p}, "context": map[string]any{"diagnostics": here}}, &actions)
			ok := false
			for _, a := range actions {
				if a.Edit != nil && len(a.Edit.Changes[uri]) == 1 && a.Edit.Changes[uri][0].NewText == m.args[0] {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s: code actions %+v", where, actions)
			}
		case "def":
			var locs []protocol.Location
			c.call("textDocument/definition", here, &locs)
			if len(locs) != 1 || locs[0].Range.Start != markAt(m, m.args[0]) {
				t.Errorf("%s: definition %+v, want %+v", where, locs, markAt(m, m.args[0]))
			}
		case "refs":
			var locs []protocol.Location
			params := here
			params["context"] = map[string]any{"includeDeclaration": true}
			c.call("textDocument/references", params, &locs)
			var got, want []protocol.Position
			for _, l := range locs {
				got = append(got, l.Range.Start)
			}
			for _, a := range m.args {
				want = append(want, markAt(m, a))
			}
			if !samePositions(got, want) {
				t.Errorf("%s: references at %v, want %v", where, got, want)
			}
		case "rename":
			var edit protocol.WorkspaceEdit
			params := here
			params["newName"] = m.args[0]
			c.call("textDocument/rename", params, &edit)
			var got, want []protocol.Position
			for _, e := range edit.Changes[uri] {
				got = append(got, e.Range.Start)
				if e.NewText != m.args[0] {
					t.Errorf("%s: an edit writes %q", where, e.NewText)
				}
			}
			for _, a := range m.args[1:] {
				want = append(want, markAt(m, a))
			}
			if !samePositions(got, want) {
				t.Errorf("%s: rename edits at %v, want %v", where, got, want)
			}
		case "sig":
			var h *protocol.SignatureHelp
			c.call("textDocument/signatureHelp", here, &h)
			active, _ := strconv.Atoi(m.args[1])
			if h == nil || len(h.Signatures) != 1 || !strings.Contains(h.Signatures[0].Label, m.args[0]) || int(h.ActiveParameter) != active {
				t.Errorf("%s: signature help %+v", where, h)
			}
		case "tok":
			if got := tokenAt(t, c, uri, p); got != m.args[0] {
				t.Errorf("%s: token type %q", where, got)
			}
		case "symbols":
			var syms []protocol.DocumentSymbol
			c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
			var names []string
			for _, s := range syms {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, m.args) {
				t.Errorf("%s: symbols %v", where, names)
			}
		case "format":
			checkFormat(t, c, uri, src)
		default:
			t.Fatalf("%s: unknown marker", where)
		}
	}
	for i, d := range diags {
		if !matched[i] {
			t.Errorf("unexpected diagnostic at %d:%d: %s %s", d.Range.Start.Line+1, d.Range.Start.Character, d.Code, d.Message)
		}
	}
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
}

func covers(r protocol.Range, p protocol.Position) bool {
	before := func(a, b protocol.Position) bool {
		return a.Line < b.Line || a.Line == b.Line && a.Character <= b.Character
	}
	return before(r.Start, p) && before(p, r.End)
}

func samePositions(a, b []protocol.Position) bool {
	key := func(p protocol.Position) string { return fmt.Sprintf("%06d:%06d", p.Line, p.Character) }
	var x, y []string
	for _, p := range a {
		x = append(x, key(p))
	}
	for _, p := range b {
		y = append(y, key(p))
	}
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// tokenAt decodes the semantic tokens and names the type of the one at p.
func tokenAt(t *testing.T, c *client, uri string, p protocol.Position) string {
	var legend struct {
		Legend protocol.SemanticTokensLegend `json:"legend"`
	}
	if err := jsonUnmarshal(c.caps["semanticTokensProvider"], &legend); err != nil {
		t.Fatalf("semantic tokens legend: %v", err)
	}
	var toks protocol.SemanticTokens
	c.call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}, &toks)
	var line, char uint32
	for i := 0; i+5 <= len(toks.Data); i += 5 {
		d := toks.Data[i : i+5]
		if d[0] > 0 {
			line, char = line+d[0], d[1]
		} else {
			char += d[1]
		}
		if line == p.Line && char <= p.Character && p.Character < char+d[2] {
			return legend.Legend.TokenTypes[d[3]]
		}
	}
	return ""
}

// checkFormat formats the document, checks every comment line survives
// and that formatting the result changes nothing.
func checkFormat(t *testing.T, c *client, uri, src string) {
	if _, ok := c.caps["documentFormattingProvider"]; !ok {
		t.Skip("this build offers no formatter (Options.Format is nil)")
	}
	var edits []protocol.TextEdit
	c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 4, "insertSpaces": true}}, &edits)
	formatted := src
	if len(edits) == 1 {
		formatted = edits[0].NewText
	}
	for _, l := range strings.Split(src, "\n") {
		if tl := strings.TrimSpace(l); strings.HasPrefix(tl, "#") && !strings.Contains(formatted, tl) {
			t.Errorf("formatting lost the comment %q", tl)
		}
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{"text": formatted}}})
	c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 4, "insertSpaces": true}}, &edits)
	if len(edits) != 0 {
		t.Errorf("formatting is not idempotent: %+v", edits)
	}
}
