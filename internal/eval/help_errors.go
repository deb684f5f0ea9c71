package eval

// The list of language error codes that `help errors` shows: value.Codes
// rendered, so the help, the docs' table (docs/shoal.md) and the code
// read one list.

import (
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

// errorCodesWidth is the width the list is wrapped to.
const errorCodesWidth = 78

// errorCodesHelp renders value.Codes for `help errors`: each code with its
// meaning, then what raises it, wrapped and indented under the meaning.
func errorCodesHelp() string {
	codes := value.Codes()
	width := 0
	for _, c := range codes {
		width = max(width, len(c.Name))
	}
	indent := strings.Repeat(" ", 2+width+2)
	var b strings.Builder
	b.WriteString("The codes (err.code):")
	for _, c := range codes {
		b.WriteString("\n  " + c.Name + strings.Repeat(" ", width+2-len(c.Name)))
		wrapInto(&b, c.Meaning, indent, len(indent))
		raised := "raised by: " + c.RaisedBy
		if c.Reserved {
			raised = "reserved: " + c.RaisedBy
		}
		b.WriteString("\n" + indent)
		wrapInto(&b, raised, indent, len(indent))
	}
	return b.String()
}

// wrapInto writes text's words from column col, breaking lines before
// errorCodesWidth and starting each new one with indent.
func wrapInto(b *strings.Builder, text, indent string, col int) {
	start := col
	for i, w := range strings.Fields(text) {
		if i > 0 && col+1+len(w) > errorCodesWidth {
			b.WriteString("\n" + indent)
			col = len(indent)
			start = col
		}
		if col > start {
			b.WriteString(" ")
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
}

// errorCodeHelp is `help CODE` for one language error code: its meaning
// and what raises it, from value.Codes.
func errorCodeHelp(name string) (string, bool) {
	for _, c := range value.Codes() {
		if c.Name != name {
			continue
		}
		var b strings.Builder
		b.WriteString(c.Name + " — an error code (err.code): ")
		wrapInto(&b, c.Meaning, "", len(c.Name)+len(" — an error code (err.code): "))
		raised := "raised by: " + c.RaisedBy
		if c.Reserved {
			raised = "reserved: " + c.RaisedBy
		}
		b.WriteString("\n\n")
		wrapInto(&b, raised, "", 0)
		b.WriteString("\n\nhelp errors lists every code; catch one with try { ... } catch err { err.code }\n")
		return b.String(), true
	}
	return "", false
}
