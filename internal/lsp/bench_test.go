package lsp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/lsp"
	"github.com/shoalgo/shoal/internal/lsp/protocol"
	"github.com/shoalgo/shoal/internal/stdlib"
	"github.com/shoalgo/shoal/internal/syntax"
)

// benchSource is a 5,000-line Shoal file: bindings, functions, method
// chains, commands and comments, ending in a line being typed.
func benchSource(lines int) string {
	var b strings.Builder
	for i := 0; b.Len() >= 0 && strings.Count(b.String(), "\n") < lines-1; i++ {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "# step %d: the numbers, sorted and summed\n", i)
		case 1:
			fmt.Fprintf(&b, "let nums%d = [%d, 3, 1, 2].sort().map(x => x * 2)\n", i, i)
		case 2:
			fmt.Fprintf(&b, "fn f%d(a, b) { let t = a + b\n  t * %d }\n", i, i)
		case 3:
			fmt.Fprintf(&b, "let s%d = \"é😀 %d\".upper()\n", i, i)
		case 4:
			fmt.Fprintf(&b, "let big%d = (ls --all).where(.size > %dkb)\n", i, i)
		}
	}
	b.WriteString("nums1.so\n") // being typed: `.so`, then `.soo`
	return b.String()
}

// inProcess serves a server in this process over pipes.
func inProcess(b *testing.B) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	reg := stdlib.Registry()
	go func() { _ = lsp.Serve(context.Background(), inR, outW, lsp.Options{Registry: reg}) }()
	c := &client{t: b, in: inW, w: protocol.NewWriter(inW), inbox: newInbox(), diags: map[string]protocol.PublishDiagnosticsParams{}}
	go c.inbox.drain(protocol.NewReader(bufio.NewReaderSize(outR, 1<<16)))
	c.call("initialize", map[string]any{}, nil)
	b.Cleanup(func() { inW.Close() })
	return c
}

// BenchmarkKeystroke measures what an editor waits for per keystroke on a
// 5,000-line file: one incremental change (and the diagnostics it
// publishes), then a completion or hover request, to its answer; beside
// the floor of parsing the same file. It reports p50 and p99.
func BenchmarkKeystroke(b *testing.B) {
	src := benchSource(5000)
	lastLine := strings.Count(src, "\n") - 1
	b.Run("parse-floor", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			t0 := time.Now()
			if _, err := syntax.Parse(src, syntax.ParseOptions{}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		report(b, lat)
	})
	// The line being typed: the last one, and one in the middle (the
	// statements after it move with every keystroke).
	lines := strings.SplitAfter(src, "\n")
	mid := len(lines) / 2
	for !strings.HasPrefix(lines[mid], "# step") {
		mid++
	}
	midSrc := strings.Join(lines[:mid], "") + "nums1.so\n" + strings.Join(lines[mid:], "")
	for _, c := range []struct {
		name, src string
		line      int
	}{
		{"completion", src, lastLine}, {"hover", src, lastLine},
		{"completion-middle", midSrc, mid}, {"hover-middle", midSrc, mid},
	} {
		b.Run(c.name, func(b *testing.B) {
			keystrokes(b, c.src, c.line, strings.HasPrefix(c.name, "completion"))
		})
	}
}

// keystrokes types on line (which reads `nums1.so`) and asks for
// completion there or hover on the line before, per iteration.
func keystrokes(b *testing.B, src string, line int, completion bool) {
	c := inProcess(b)
	uri := "file:///bench/big.shl"
	c.open(uri, src)
	c.diagnostics(uri)
	lat := make([]time.Duration, 0, b.N)
	version := 1
	for b.Loop() {
		version++
		// Type one character and delete it again, alternately, so every
		// request meets a new version.
		text, r := "o", protocol.Range{Start: protocol.Position{Line: uint32(line), Character: 8}, End: protocol.Position{Line: uint32(line), Character: 8}}
		if version%2 == 1 {
			text, r.End.Character = "", 9
		}
		t0 := time.Now()
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version},
			"contentChanges": []map[string]any{{"range": r, "text": text}}})
		if completion {
			var list protocol.CompletionList
			c.call("textDocument/completion", at(uri, line, 8), &list)
			if len(list.Items) == 0 {
				b.Fatal("no completion")
			}
		} else {
			var h *protocol.Hover
			c.call("textDocument/hover", at(uri, line-1, 3), &h)
		}
		lat = append(lat, time.Since(t0))
	}
	report(b, lat)
}

// report adds the p50 and p99 latencies in milliseconds.
func report(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	q := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(float64(len(lat))*p))].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}
