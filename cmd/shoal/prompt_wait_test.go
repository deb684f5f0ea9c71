package main

import (
	"regexp"
	"testing"
	"time"
)

// freshPrompt is a prompt at the start of a line: after a newline, with
// only the editor's terminal mode sequences (bracketed paste on, cursor
// shape) between, not a prompt redrawn as a line is typed.
var freshPrompt = regexp.MustCompile(`\n(?:\x1b\[[0-9;?]*[ -/]*[@-~])*shoal> `)

// waitForPrompt waits until the output after from shows a fresh prompt
// and returns the offset past it.
func (p *ptyOutput) waitForPrompt(t *testing.T, from int) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		out := p.String()
		if loc := freshPrompt.FindStringIndex(out[from:]); loc != nil {
			return from + loc[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("terminal never showed a fresh prompt; it shows:\n%q", out[from:])
		}
	}
}
