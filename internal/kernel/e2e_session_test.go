package kernel_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// Nothing of one (principal, session) is visible to another: refs, tasks,
// events.
func TestE2EIsolationAcrossSessionsAndPrincipals(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	owner := k.attached(t, "shared", "")
	res, err := owner.Exec(ctx, client.ExecParams{Src: "40 + 2"})
	if err != nil || res.Ref != "out:1" {
		t.Fatalf("exec = %+v, %v", res, err)
	}
	task, err := owner.Exec(ctx, client.ExecParams{Src: "sleep 5s", Async: true})
	if err != nil || !task.IsTask() {
		t.Fatalf("async exec = %+v, %v", task, err)
	}
	if _, err := owner.EventsPublish(ctx, "user.secret", "owner only"); err != nil {
		t.Fatal(err)
	}

	others := map[string]*client.Client{
		"same principal, other session": k.attached(t, "elsewhere", ""),
		"other principal, same session": k.attached(t, "shared", k.token(t, "agent:intruder")),
	}
	var subs []*client.Subscription
	for name, o := range others {
		_, err := o.ValueGet(ctx, client.ValueGetParams{Ref: "out:1"})
		wantCode(t, name+": value.get", err, proto.CodeUnknownRef)
		for _, m := range []string{"task.get", "task.await", "task.cancel", "task.suspend", "task.resume"} {
			wantCode(t, name+": "+m, o.Call(ctx, m, map[string]any{"task": task.Task}, nil), proto.CodeUnknownTask)
		}
		var list struct {
			Tasks []json.RawMessage `json:"tasks"`
		}
		if err := o.Call(ctx, "task.list", nil, &list); err != nil || len(list.Tasks) != 0 {
			t.Errorf("%s: task.list = %d tasks, %v", name, len(list.Tasks), err)
		}
		for _, ch := range []string{"user.secret", "session.transcript", "render", task.Events} {
			evs, err := o.EventsRead(ctx, ch, 0, 0)
			if err != nil || len(evs) != 0 {
				t.Errorf("%s: events.read %s = %d events, %v", name, ch, len(evs), err)
			}
		}
		s, err := o.Subscribe(ctx, "user.secret", 0)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, s)
	}
	if _, err := owner.EventsPublish(ctx, "user.secret", "still owner only"); err != nil {
		t.Fatal(err)
	}
	// A marker published by each other scope arrives only there.
	for name, o := range others {
		if _, err := o.EventsPublish(ctx, "user.secret", name); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range subs {
		ev := next(t, s, 5*time.Second)
		var who string
		json.Unmarshal(ev.Payload, &who)
		if _, mine := others[who]; !mine || ev.Seq != 1 {
			t.Errorf("other scope received %s (seq %d)", ev.Payload, ev.Seq)
		}
	}
	// The owner still controls its own task.
	if err := owner.Call(ctx, "task.cancel", map[string]any{"task": task.Task}, nil); err != nil {
		t.Errorf("owner cancel: %v", err)
	}
}

// Value position captures a final command's output into an outcome;
// statement position streams it, and the kernel publishes what streamed on
// the render channel.
func TestE2EPositionAndRenderOutput(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	c := k.attached(t, "pos", "")
	render, err := c.SubscribeLive(ctx, "render")
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Exec(ctx, client.ExecParams{Src: "sh { echo captured }", Position: client.PositionVal})
	if err != nil {
		t.Fatal(err)
	}
	v, err := res.Decode()
	if err != nil {
		t.Fatal(err)
	}
	oc, ok := v.(*proto.Outcome)
	if !ok || !strings.Contains(fmt.Sprint(oc.Out), "captured") {
		t.Errorf("value position = %s", res.Value)
	}
	if ev := next(t, render, 5*time.Second); strings.Contains(string(ev.Payload), `"output"`) {
		t.Errorf("value position published output: %s", ev.Payload)
	}

	res, err = c.Exec(ctx, client.ExecParams{Src: "sh { echo streamed }\n7"})
	if err != nil || res.Render != "7" {
		t.Fatalf("stmt exec = %+v, %v", res, err)
	}
	var out struct {
		Ref       string `json:"ref"`
		Output    string `json:"output"`
		Bytes     int64  `json:"bytes"`
		Truncated bool   `json:"truncated"`
	}
	for out.Output == "" {
		json.Unmarshal(next(t, render, 5*time.Second).Payload, &out)
	}
	if out.Output != "streamed\n" || out.Ref != res.Ref || out.Bytes != 9 || out.Truncated {
		t.Errorf("render output event = %+v", out)
	}
	// Output is bounded.
	if _, err := c.Exec(ctx, client.ExecParams{Src: "sh { head -c 200000 /dev/zero | tr '\\0' x }\n1"}); err != nil {
		t.Fatal(err)
	}
	out.Output = ""
	for out.Output == "" {
		json.Unmarshal(next(t, render, 5*time.Second).Payload, &out)
	}
	if !out.Truncated || out.Bytes != 200000 || len(out.Output) > 64<<10 {
		t.Errorf("big output: %d bytes kept of %d, truncated %v", len(out.Output), out.Bytes, out.Truncated)
	}
}

func TestE2ENestedElision(t *testing.T) {
	k := newE2E(t)
	for i := 0; i < 150; i++ {
		if err := os.WriteFile(filepath.Join(k.dir, fmt.Sprintf("f%03d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := testCtx(t)
	c := k.attached(t, "el", "")
	type ref struct {
		Tag string `json:"$"`
		URI string `json:"uri"`
		Of  string `json:"of"`
		N   int    `json:"n"`
	}
	// A short list of huge strings stays a list, each string a ref.
	res, err := c.Exec(ctx, client.ExecParams{Src: `let big = (0..20000).map(x => "y").join("")` + "\n[big, \"small\", big]"})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tag string            `json:"$"`
		V   []json.RawMessage `json:"v"`
	}
	json.Unmarshal(res.Value, &list)
	if list.Tag != "list" || len(list.V) != 3 || len(res.Value) > 8<<10 {
		t.Fatalf("list of big strings = %.300s (%d bytes)", res.Value, len(res.Value))
	}
	var r0 ref
	json.Unmarshal(list.V[0], &r0)
	if r0.Tag != "ref" || r0.Of != "str" || r0.N != 20000 || r0.URI != "shoal://"+strings.Replace(res.Ref, ":", "/", 1)+"#[0]" {
		t.Errorf("nested string ref = %+v", r0)
	}
	if string(list.V[1]) != `{"$":"str","v":"small"}` {
		t.Errorf("small item = %s", list.V[1])
	}
	// The nested value is reachable by the path in its uri.
	got, err := c.ValueGet(ctx, client.ValueGetParams{Ref: res.Ref, Path: "[2]", Format: "raw"})
	if err != nil || got.Total != 20000 {
		t.Errorf("value.get [2] = %+v, %v", got, err)
	}

	// A record holding a big table keeps its small fields inline.
	res, err = c.Exec(ctx, client.ExecParams{Src: "let t = (ls).out\n{name: \"listing\", files: t}"})
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Tag string                     `json:"$"`
		V   map[string]json.RawMessage `json:"v"`
	}
	json.Unmarshal(res.Value, &rec)
	var tr ref
	json.Unmarshal(rec.V["files"], &tr)
	if rec.Tag != "record" || string(rec.V["name"]) != `{"$":"str","v":"listing"}` || tr.Tag != "ref" || tr.Of != "table" || tr.N != 150 || !strings.HasSuffix(tr.URI, "#.files") {
		t.Errorf("record with big table = %.400s", res.Value)
	}
	// The hard cap holds whatever the caller asks for.
	res, err = c.Exec(ctx, client.ExecParams{Src: "[big, big, big, big, big, big, big, big]", Elide: &client.Elide{MaxBytes: 1 << 30, MaxItems: 1 << 20}})
	if err != nil || len(res.Value) > 64<<10 {
		t.Errorf("hard cap: %d bytes, %v", len(res.Value), err)
	}
}

func TestE2ESessionEnvReefAndParse(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	owner := k.attached(t, "env", "")
	var env struct {
		Granted bool              `json:"granted"`
		Names   []string          `json:"names"`
		Env     map[string]string `json:"env"`
	}
	if err := owner.Call(ctx, "session.env", nil, &env); err != nil || !env.Granted || env.Env["PATH"] != "/usr/bin:/bin" || !sort.StringsAreSorted(env.Names) {
		t.Errorf("owner session.env = %+v, %v", env, err)
	}
	// A principal without policy may not write the environment either;
	// session.env names the kernel's variables, withheld from it, without
	// their values.
	agent := k.attached(t, "env", k.token(t, "agent:e"))
	if _, err := agent.Exec(ctx, client.ExecParams{Src: `env.B = "2"` + "\n" + `env.A = "1"`}); err == nil {
		t.Fatal("env writes allowed to a principal without policy")
	}
	var raw map[string]json.RawMessage
	if err := agent.Call(ctx, "session.env", nil, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["granted"]) != "false" || string(raw["names"]) != `["HOME","PATH"]` || raw["env"] != nil {
		t.Errorf("denied session.env = %v", raw)
	}

	var reef struct {
		ActiveScope string `json:"active_scope"`
		Bindings    []struct {
			Tool     string  `json:"tool"`
			Version  *string `json:"version"`
			Provider string  `json:"provider"`
			Scope    string  `json:"scope"`
		} `json:"bindings"`
	}
	if _, err := owner.Exec(ctx, client.ExecParams{Src: "sh { true }"}); err != nil {
		t.Fatal(err)
	}
	if err := owner.Call(ctx, "session.reef", nil, &reef); err != nil || reef.ActiveScope != k.dir || len(reef.Bindings) != 1 {
		t.Fatalf("session.reef = %+v, %v", reef, err)
	}
	if b := reef.Bindings[0]; b.Tool != "sh" || b.Provider != "system" || b.Scope != k.dir {
		t.Errorf("reef binding %+v", b)
	}

	for src, incomplete := range map[string]bool{"fn f() {": true, "let = 1": false} {
		_, err := owner.Parse(ctx, src)
		wantCode(t, "parse "+src, err, proto.CodeParseError)
		var data struct {
			Incomplete *bool `json:"incomplete"`
		}
		if err := client.ErrorData(err, &data); err != nil || data.Incomplete == nil || *data.Incomplete != incomplete {
			t.Errorf("parse %q: incomplete = %v, want %v (%v)", src, data.Incomplete, incomplete, err)
		}
	}
}
