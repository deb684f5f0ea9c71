//go:build linux

package hostile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// outputEvent is an output event on a task's channel.
type outputEvent struct {
	Kind   string  `json:"kind"`
	Stream string  `json:"stream"`
	Offset int64   `json:"offset"`
	Text   *string `json:"text"`
	Base64 *string `json:"base64"`
}

func (e outputEvent) bytes(t *testing.T) []byte {
	t.Helper()
	if e.Base64 != nil {
		b, err := base64.StdEncoding.DecodeString(*e.Base64)
		if err != nil {
			t.Fatalf("output event base64: %v", err)
		}
		return b
	}
	if e.Text == nil {
		t.Fatalf("output event with neither text nor base64")
	}
	return []byte(*e.Text)
}

// reassembledWant is what the output tests' programs print: text on both
// streams, then bytes that are not UTF-8.
var reassembledWant = []byte("first\nwarn\nsecond\n\xff\xfe\x00end")

// checkReassembled reads output events on s into got (by offset) until
// they reassemble as many bytes as reassembledWant, and checks them
// against it, and returns them: which of "first" and "warn" came first is the program's
// business, each stream's bytes are in order.
func checkReassembled(t *testing.T, what string, s *client.Subscription, got map[int64][]byte) []byte {
	t.Helper()
	want := reassembledWant
	var fromEvents []byte
	for len(fromEvents) < len(want) {
		if b, ok := got[int64(len(fromEvents))]; ok {
			fromEvents = append(fromEvents, b...)
			continue
		}
		o, ok := nextOutput(t, s)
		if !ok {
			t.Fatalf("subscription ended: %v", s.Err())
		}
		got[o.Offset] = o.bytes(t)
	}
	if len(fromEvents) != len(want) || !bytes.Contains(fromEvents, []byte("second\n\xff\xfe\x00end")) ||
		!bytes.Contains(fromEvents, []byte("first\n")) || !bytes.Contains(fromEvents, []byte("warn\n")) {
		t.Fatalf("%sevents reassemble %q, want the bytes of %q", what, fromEvents, want)
	}
	return fromEvents
}

// outputUntil collects s's output events, by offset, until what they
// carried contains want.
func outputUntil(t *testing.T, s *client.Subscription, want string) map[int64][]byte {
	t.Helper()
	got := map[int64][]byte{}
	seen := ""
	for !strings.Contains(seen, want) {
		o, ok := nextOutput(t, s)
		if !ok {
			t.Fatalf("subscription ended: %v", s.Err())
		}
		got[o.Offset] = o.bytes(t)
		seen += string(o.bytes(t))
	}
	return got
}

// nextOutput waits for the next output event on s (skipping state
// changes); the deadline only keeps a broken kernel from hanging the test.
func nextOutput(t *testing.T, s *client.Subscription) (outputEvent, bool) {
	t.Helper()
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				return outputEvent{}, false
			}
			var o outputEvent
			if json.Unmarshal(ev.Payload, &o) == nil && o.Kind == "output" {
				return o, true
			}
		case <-time.After(time.Minute):
			t.Fatal("no output event within a minute")
		}
	}
}

// TestTaskOutputLive: a program's output is published on its task's
// channel while it runs (the program waits for the test to have seen its
// first line before it goes on), both streams, with offsets that
// reassemble it; after a reconnect task.output gives back exactly what it
// printed, text and binary.
func TestTaskOutputLive(t *testing.T) {
	k := Start(t, Options{})
	ctx := Ctx(t)
	const tok = "" // the kernel owner: a token principal needs a policy to run programs
	c := k.Attach(t, "live", tok)
	gate := filepath.Join(k.Dir, "gate")
	src := `sh { echo first; echo warn >&2; while [ ! -e gate ]; do sleep 0.05; done; printf 'second\n\377\376\000end'; }`
	res, err := c.Exec(ctx, client.ExecParams{Src: src, Async: true})
	if err != nil || !res.IsTask() {
		t.Fatalf("async exec = %+v, %v", res, err)
	}
	s, err := c.Subscribe(ctx, res.Events, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := outputUntil(t, s, "first")
	// The program is still running: it waits for the gate.
	if rec, err := c.TaskGet(ctx, res.Task); err != nil || rec.State != "running" {
		t.Fatalf("task after its first output = %+v, %v", rec, err)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TaskAwait(ctx, res.Task, 0); err != nil {
		t.Fatal(err)
	}
	fromEvents := checkReassembled(t, "", s, got)
	c.Close()

	// Another connection of the same principal and session reads it all
	// back through the resumable reader.
	c2 := k.Attach(t, "live", tok)
	all, err := io.ReadAll(c2.NewTaskOutputReader(ctx, res.Task, 0))
	if err != nil || !bytes.Equal(all, fromEvents) {
		t.Fatalf("task.output after reconnect = %q, %v; events said %q", all, err, fromEvents)
	}
	// From an offset, as one answer: binary comes as base64. The offset
	// is found, not assumed: stdout and stderr are two pipes, read apart,
	// so on a busy machine "warn" can land after the binary tail.
	off := bytes.Index(all, []byte("\376\000end"))
	if off < 0 {
		t.Fatalf("the binary tail is not in the output %q", all)
	}
	ch, err := c2.TaskOutput(ctx, res.Task, int64(off), 0)
	if err != nil || ch.Base64 == nil || !ch.EOF || ch.Next != int64(len(all)) || ch.Dropped != 0 {
		t.Fatalf("task.output from offset %d of %d = %+v, %v", off, len(all), ch, err)
	}
	if b, _ := client.ChunkBytes(ch); !bytes.Equal(b, all[off:]) {
		t.Errorf("task.output tail = %q, want %q", b, all[off:])
	}

	// Owner-scoped: another principal does not see the task; bad params
	// are typed errors.
	other := k.Attach(t, "live", k.Token(t, "stranger"))
	_, err = other.TaskOutput(ctx, res.Task, 0, 0)
	WantCode(t, err, proto.CodeUnknownTask)
	_, err = c2.TaskOutput(ctx, res.Task, -1, 0)
	WantCode(t, err, proto.CodeInvalidParams)
	_, err = c2.TaskOutput(ctx, res.Task, 0, proto.MaxTaskOutputRead*10)
	WantCode(t, err, proto.CodeInvalidParams)
	k.Alive(t)
}

// TestTaskOutputRetention: a task printing ten times its retention keeps
// the kernel's RSS bounded and task.output reports what was dropped; many
// tasks printing ten times the kernel-wide bound together leave at most
// that bound retained; another client is served throughout.
func TestTaskOutputRetention(t *testing.T) {
	const perTask, kernelWide = 4 << 20, 8 << 20
	k := Start(t, Options{Flags: []string{"--task-output", "4MiB", "--kernel-output", "8MiB", "--principal-output", "8MiB"}})
	ctx := Ctx(t)
	c := k.Attach(t, "flood", "")
	hb := k.Heartbeat(t)

	// One task: 10× its retention.
	res, err := c.Exec(ctx, client.ExecParams{Src: "sh { head -c 41943040 /dev/zero | tr '\\000' a }", Async: true})
	if err != nil || !res.IsTask() {
		t.Fatalf("async exec = %+v, %v", res, err)
	}
	if _, err := c.TaskAwait(ctx, res.Task, 0); err != nil {
		t.Fatal(err)
	}
	ch, err := c.TaskOutput(ctx, res.Task, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Dropped < 10*perTask-perTask-64<<10 || ch.Offset != ch.Dropped {
		t.Errorf("task.output of a 40 MiB task = offset %d dropped %d, want about %d dropped", ch.Offset, ch.Dropped, 9*perTask)
	}
	r := c.NewTaskOutputReader(ctx, res.Task, 0)
	n, err := io.Copy(io.Discard, r)
	if err != nil || r.Skipped != ch.Dropped || ch.Dropped+n != 40<<20 || n > perTask {
		t.Errorf("reader read %d after skipping %d, %v; want %d in all, at most %d read", n, r.Skipped, err, 40<<20, perTask)
	}
	k.WantRSSUnder(t, 256<<20)

	// Several tasks at once: 10× the kernel-wide bound together.
	var ids []string
	for range 5 {
		res, err := c.Exec(ctx, client.ExecParams{Src: "sh { head -c 16777216 /dev/zero | tr '\\000' b }", Async: true})
		if err != nil || !res.IsTask() {
			t.Fatalf("async exec = %+v, %v", res, err)
		}
		ids = append(ids, res.Task)
	}
	for _, id := range ids {
		if _, err := c.TaskAwait(ctx, id, 0); err != nil {
			t.Fatal(err)
		}
	}
	var kept, printed int64
	for _, id := range ids {
		ch, err := c.TaskOutput(ctx, id, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		end, err := c.TaskOutput(ctx, id, 1<<40, 0) // past the end: nothing, next at the end
		if err != nil || !end.EOF {
			t.Fatalf("task.output past the end = %+v, %v", end, err)
		}
		kept += end.Next - ch.Dropped
		printed += end.Next
	}
	if printed != 5*16<<20 || kept > kernelWide {
		t.Errorf("5 tasks printed %d and retain %d, want %d printed and at most %d retained", printed, kept, 5*16<<20, kernelWide)
	}
	if lat := hb.Stop(t); len(lat) == 0 {
		t.Error("the heartbeat client was not served")
	}
	k.WantRSSUnder(t, 256<<20)
	k.Alive(t)
}

// TestTaskOutputTimedOut: an exec whose timeout_ms expires goes on as a
// task whose output, printed before and after the timeout, is on its
// channel and in task.output.
func TestTaskOutputTimedOut(t *testing.T) {
	k := Start(t, Options{})
	ctx := Ctx(t)
	c := k.Owner(t)
	gate := filepath.Join(k.Dir, "gate2")
	src := `sh { echo before; while [ ! -e gate2 ]; do sleep 0.05; done; echo after; }`
	res, err := c.Exec(ctx, client.ExecParams{Src: src, TimeoutMS: 50})
	if err != nil || !res.IsTask() || !res.TimedOut {
		t.Fatalf("timed exec = %+v, %v", res, err)
	}
	s, err := c.Subscribe(ctx, res.Events, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := nextOutput(t, s); !ok || o.Offset != 0 || o.Text == nil || *o.Text != "before\n" {
		t.Fatalf("first output event %+v (ok %v)", o, ok)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if o, ok := nextOutput(t, s); !ok || o.Offset != 7 || o.Text == nil || *o.Text != "after\n" {
		t.Fatalf("second output event %+v (ok %v)", o, ok)
	}
	all, err := io.ReadAll(c.NewTaskOutputReader(ctx, res.Task, 0))
	if err != nil || string(all) != "before\nafter\n" {
		t.Fatalf("task.output = %q, %v", all, err)
	}
	k.Alive(t)
}

// TestTaskOutputSpoolCount: ten times --output-spools tasks, each printing
// a line; the state directory keeps at most that many spool files, the
// newest task's output reads back whole, the oldest's answers without
// error, and another client is served throughout.
func TestTaskOutputSpoolCount(t *testing.T) {
	const spools = 4
	k := Start(t, Options{Flags: []string{"--output-spools", "4"}})
	ctx := Ctx(t)
	c := k.Attach(t, "many", "")
	hb := k.Heartbeat(t)
	var ids []string
	for i := range 10 * spools {
		res, err := c.Exec(ctx, client.ExecParams{Src: "sh { echo line-" + strings.Repeat("x", i%3) + "; }", Async: true})
		if err != nil || !res.IsTask() {
			t.Fatalf("async exec %d = %+v, %v", i, res, err)
		}
		if _, err := c.TaskAwait(ctx, res.Task, 0); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Task)
	}
	files, _ := filepath.Glob(filepath.Join(k.StateDir, "output", "*.out"))
	if len(files) == 0 || len(files) > spools {
		t.Errorf("%d spool files after %d tasks, want at most %d", len(files), len(ids), spools)
	}
	last, err := c.TaskOutput(ctx, ids[len(ids)-1], 0, 0)
	if err != nil || last.Text == nil || !strings.HasPrefix(*last.Text, "line-") || !last.EOF {
		t.Errorf("the newest task's output = %+v, %v", last, err)
	}
	// The oldest task's spool was forgotten: its bytes are reported
	// dropped, not as an empty output.
	if first, err := c.TaskOutput(ctx, ids[0], 0, 0); err != nil || first.Dropped == 0 ||
		first.Next != first.Dropped || first.Offset != first.Dropped || !first.EOF {
		t.Errorf("the oldest task's output, its spool forgotten = %+v, %v; want its bytes dropped", first, err)
	}
	if lat := hb.Stop(t); len(lat) == 0 {
		t.Error("the heartbeat client was not served")
	}
	k.Alive(t)
}
