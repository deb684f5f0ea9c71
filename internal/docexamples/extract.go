// Package docexamples finds the Shoal examples in Markdown documentation:
// every fence whose info string starts with `shoal`, with its modifiers,
// so a test can run each one (cmd/shoal's doc-example harness). It is
// pure: its caller reads the files.
package docexamples

import (
	"fmt"
	"strings"
)

// Limits on what one document may make the extractor keep.
const (
	// MaxExamples is the most fences one document yields.
	MaxExamples = 2000
	// MaxExampleBytes is the largest fence body kept.
	MaxExampleBytes = 64 << 10
)

// Mode says how an example is checked.
type Mode int

const (
	// Run: the fence is one program that must parse and evaluate without
	// an error.
	Run Mode = iota
	// NoRun: the fence must parse; it is not run (it needs a kernel, the
	// network, a terminal or a program the fixture cannot provide). The
	// info string says why: ```shoal no-run REASON.
	NoRun
	// Errors: each line of the fence (blank lines and comments aside) is a
	// program of its own that must parse and then raise an error; the
	// fence shows what Shoal refuses. ```shoal error.
	Errors
)

func (m Mode) String() string {
	switch m {
	case NoRun:
		return "no-run"
	case Errors:
		return "error"
	}
	return "run"
}

// Example is one ```shoal fence.
type Example struct {
	File   string // the document's name, as the caller gave it
	Line   int    // the line of the opening fence, 1-based
	Mode   Mode
	Reason string // the words after no-run
	Src    string // the fence's body, without the fences
}

// Name is "FILE:LINE".
func (e Example) Name() string { return fmt.Sprintf("%s:%d", e.File, e.Line) }

// Extract returns the ```shoal fences of a Markdown document. A fence may
// be indented (inside a list item); its body is unindented by the
// opening fence's indentation. Fences of other languages are skipped,
// and so is an unterminated fence at the end.
func Extract(file, doc string) ([]Example, error) { return extract(file, doc, false) }

// ExtractLenient is Extract for documents written elsewhere (the
// reference's): an info string's other words are ignored, so every
// ```shoal fence is an example to run.
func ExtractLenient(file, doc string) ([]Example, error) { return extract(file, doc, true) }

func extract(file, doc string, lenient bool) ([]Example, error) {
	var out []Example
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimLeft(line, " \t")
		indent := len(line) - len(trimmed)
		fence := fenceOf(trimmed)
		if fence == "" {
			continue
		}
		info := strings.TrimSpace(trimmed[len(fence):])
		start := i
		var body []string
		closed := false
		for i++; i < len(lines); i++ {
			t := strings.TrimLeft(lines[i], " \t")
			if strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
				closed = true
				break
			}
			body = append(body, unindent(lines[i], indent))
		}
		if !closed {
			break
		}
		lang, rest, _ := strings.Cut(info, " ")
		if lang != "shoal" {
			continue
		}
		ex := Example{File: file, Line: start + 1, Src: strings.Join(body, "\n")}
		word, reason, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if lenient {
			word = ""
		}
		switch word {
		case "":
		case "no-run":
			ex.Mode, ex.Reason = NoRun, strings.TrimSpace(reason)
			if ex.Reason == "" {
				return nil, fmt.Errorf("%s: a no-run example says why: ```shoal no-run REASON", ex.Name())
			}
		case "error":
			ex.Mode = Errors
		default:
			return nil, fmt.Errorf("%s: unknown modifier %q (run, no-run REASON, error)", ex.Name(), word)
		}
		if len(ex.Src) > MaxExampleBytes {
			return nil, fmt.Errorf("%s: example longer than %d bytes", ex.Name(), MaxExampleBytes)
		}
		if len(out) == MaxExamples {
			return nil, fmt.Errorf("%s: more than %d examples", file, MaxExamples)
		}
		out = append(out, ex)
	}
	return out, nil
}

// fenceOf is the fence that opens a line (three or more backticks or
// tildes), or "".
func fenceOf(s string) string {
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return s[:n]
}

// unindent drops up to n leading spaces or tabs.
func unindent(s string, n int) string {
	i := 0
	for i < n && i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[i:]
}

// Lines splits an Errors example into its programs: each line that is not
// blank and not only a comment.
func Lines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}
