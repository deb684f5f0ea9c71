package value_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

var updateDocs = flag.Bool("update", false, "rewrite the error code table of docs/shoal.md from value.Codes")

const (
	docCodesFile  = "../../docs/shoal.md"
	docCodesBegin = "<!-- error codes: value.Codes, written by `go test ./internal/value -run TestDocCodesTable -update` -->\n"
	docCodesEnd   = "<!-- end of error codes -->\n"
)

// docCodesTable renders value.Codes as the docs' Markdown table.
func docCodesTable() string {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var b strings.Builder
	b.WriteString("| code | meaning | raised by |\n|---|---|---|\n")
	for _, c := range value.Codes() {
		raised := c.RaisedBy
		if c.Reserved {
			raised = "reserved: " + raised
		}
		b.WriteString("| `" + c.Name + "` | " + cell(c.Meaning) + " | " + cell(raised) + " |\n")
	}
	return b.String()
}

// TestDocCodesTable: the error code table of docs/shoal.md is value.Codes,
// row for row (-update rewrites it).
func TestDocCodesTable(t *testing.T) {
	b, err := os.ReadFile(docCodesFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	before, rest, ok := strings.Cut(doc, docCodesBegin)
	if !ok {
		t.Fatalf("docs/shoal.md has no line %q", strings.TrimSpace(docCodesBegin))
	}
	got, after, ok := strings.Cut(rest, docCodesEnd)
	if !ok {
		t.Fatalf("docs/shoal.md has no line %q after the table", strings.TrimSpace(docCodesEnd))
	}
	want := docCodesTable()
	if got == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(docCodesFile, []byte(before+docCodesBegin+want+docCodesEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/shoal.md's error code table differs from value.Codes; run go test ./internal/value -run TestDocCodesTable -update\nwant:\n%s", want)
}
