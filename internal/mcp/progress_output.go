package mcp

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/client"
)

// Progress that carries output: a long shoal_exec whose caller sent a
// progress token is told what its program prints as it prints it. Every
// ProgressOutputEvery the call reads the task's new output (task.output
// from where it left off, at most ProgressOutputBytes) and, when there is
// some, sends it as one notification whose message is that text and
// whose _meta says where it is in the task's output; when nothing new was
// printed for ProgressInterval, a status line as before. So a call sends
// at most one output notification per ProgressOutputEvery, each at most
// ProgressOutputBytes; output printed faster than that is skipped (the
// next message's shoal/offset says so) and stays readable with
// task.output or in the final result.

// Keys of an output notification's _meta.
const (
	metaTask    = "shoal/task"    // the task's id
	metaOffset  = "shoal/offset"  // the output offset of the message's first byte
	metaSkipped = "shoal/skipped" // bytes of output before it that no message carried
)

// output sends the task's output printed since the last notification, if
// any, and reports whether it sent one.
func (w *watch) output(ctx context.Context) bool {
	if w.token == nil {
		return false
	}
	ch, err := w.f.c.TaskOutput(ctx, w.task, w.off, ProgressOutputBytes)
	if err != nil {
		return false
	}
	b, err := client.ChunkBytes(ch)
	if err != nil || len(b) == 0 {
		return false
	}
	next := ch.Next
	if !ch.EOF && !utf8.Valid(b) {
		// Cut inside a character: the rest of it comes with the next
		// message, unless the chunk is not text at all.
		if k := partialRune(b); k > 0 && k < len(b) {
			b, next = b[:len(b)-k], next-int64(k)
		}
	}
	skipped := max(ch.Offset-w.off, 0)
	w.off = next
	w.n++
	w.last = time.Now()
	meta := sdk.Meta{metaTask: w.task, metaOffset: ch.Offset}
	if skipped > 0 {
		meta[metaSkipped] = skipped
	}
	_ = w.req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
		Meta: meta, ProgressToken: w.token, Progress: w.n, Message: strings.ToValidUTF8(string(b), "\uFFFD"),
	})
	return true
}

// partialRune is the length of the character b's last bytes begin but do
// not finish, 0 when none.
func partialRune(b []byte) int {
	for k := 1; k <= min(utf8.UTFMax-1, len(b)); k++ {
		if c := b[len(b)-k]; utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}

// pollEvery is how long the call waits on its task between two looks:
// ProgressOutputEvery for a caller that takes progress, else
// ProgressInterval (nothing to report).
func (w *watch) pollEvery() time.Duration {
	if w.token == nil {
		return ProgressInterval
	}
	return ProgressOutputEvery
}

// statusDue reports whether a status notification is due: nothing was
// sent for ProgressInterval.
func (w *watch) statusDue() bool {
	return time.Since(w.last) >= ProgressInterval
}
