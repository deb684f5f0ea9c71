//go:build linux

package hostile

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/client"
)

// langTaskID is the kernel task id of the language task an exec answered
// with (its handle's wire value).
func langTaskID(t *testing.T, res *client.ExecResult) string {
	t.Helper()
	var h struct {
		Kind string `json:"$"`
		ID   string `json:"id"`
	}
	if err := json.Unmarshal(res.Value, &h); err != nil || h.Kind != "task" || !strings.HasPrefix(h.ID, "task:") {
		t.Fatalf("exec answered %s (%v), want a task handle", res.Value, err)
	}
	return h.ID
}

// TestLangTaskOutputLive: what a language task's program prints (spawn
// and `cmd &`) is published on its channel while it runs (the program
// waits for the test to have seen its first line), both streams, and
// task.output gives back exactly what it printed, text and binary, from
// another connection.
func TestLangTaskOutputLive(t *testing.T) {
	k := Start(t, Options{})
	ctx := Ctx(t)
	for i, form := range []string{
		`spawn { sh { echo first; echo warn >&2; while [ ! -e GATE ]; do sleep 0.05; done; printf 'second\n\377\376\000end'; } }`,
		`sh GATE.sh &`,
	} {
		gate := "lgate" + string(rune('a'+i))
		script := "echo first; echo warn >&2; while [ ! -e " + gate + " ]; do sleep 0.05; done; printf 'second\\n\\377\\376\\000end'\n"
		if err := os.WriteFile(filepath.Join(k.Dir, gate+".sh"), []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
		src := strings.ReplaceAll(form, "GATE", gate)
		c := k.Attach(t, "lang-live", "")
		res, err := c.Exec(ctx, client.ExecParams{Src: src})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		id := langTaskID(t, res)
		s, err := c.Subscribe(ctx, "task."+strings.TrimPrefix(id, "task:"), 0)
		if err != nil {
			t.Fatal(err)
		}
		got := outputUntil(t, s, "first")
		if rec, err := c.TaskGet(ctx, id); err != nil || rec.State != "running" {
			t.Fatalf("%s: task after its first output = %+v, %v", src, rec, err)
		}
		if err := os.WriteFile(filepath.Join(k.Dir, gate), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := c.TaskAwait(ctx, id, 0); err != nil {
			t.Fatal(err)
		}
		fromEvents := checkReassembled(t, src+": ", s, got)
		c.Close()
		c2 := k.Attach(t, "lang-live", "")
		all, err := io.ReadAll(c2.NewTaskOutputReader(ctx, id, 0))
		if err != nil || !bytes.Equal(all, fromEvents) {
			t.Fatalf("%s: task.output after reconnect = %q, %v; events said %q", src, all, err, fromEvents)
		}
		c2.Close()
	}
	k.Alive(t)
}

// TestLangTaskOutputRetention: a spawned task printing 200 MiB, fifty times
// its retention, keeps the kernel's RSS bounded, and task.output reports what
// was dropped.
func TestLangTaskOutputRetention(t *testing.T) {
	const perTask = 4 << 20
	k := Start(t, Options{Flags: []string{"--task-output", "4MiB", "--kernel-output", "8MiB", "--principal-output", "8MiB"}})
	ctx := Ctx(t)
	c := k.Attach(t, "lang-flood", "")
	hb := k.Heartbeat(t)
	res, err := c.Exec(ctx, client.ExecParams{Src: "spawn { sh { head -c 209715200 /dev/zero | tr '\\000' a }; null }"})
	if err != nil {
		t.Fatal(err)
	}
	id := langTaskID(t, res)
	if _, err := c.TaskAwait(ctx, id, 0); err != nil {
		t.Fatal(err)
	}
	ch, err := c.TaskOutput(ctx, id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Dropped < 200<<20-perTask-64<<10 || ch.Offset != ch.Dropped || !strings.HasPrefix(*ch.Text, "aaaa") {
		t.Errorf("task.output of a 200 MiB spawn = offset %d dropped %d, want about %d dropped", ch.Offset, ch.Dropped, 200<<20-perTask)
	}
	r := c.NewTaskOutputReader(ctx, id, 0)
	n, err := io.Copy(io.Discard, r)
	if err != nil || r.Skipped != ch.Dropped || ch.Dropped+n != 200<<20 || n > perTask {
		t.Errorf("reader read %d after skipping %d, %v; want %d in all, at most %d read", n, r.Skipped, err, 200<<20, perTask)
	}
	if lat := hb.Stop(t); len(lat) == 0 {
		t.Error("the heartbeat client was not served")
	}
	k.WantRSSUnder(t, 256<<20)
	k.Alive(t)
}
