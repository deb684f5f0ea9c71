package kernel

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/proto"
)

// TestIntegerParamsOutsideJSONSafeRange: every integer param outside
// 0..2^53-1 is INVALID_PARAMS, and the refused call changes nothing.
func TestIntegerParamsOutsideJSONSafeRange(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("ints", "")
	c.ok("exec", map[string]any{"src": `"hello"`}, nil)
	const unsafe = "9007199254740992"   // 2^53
	const huge = "18446744073709551615" // 2^64-1
	const overflowMS = "9223372036855"  // wraps time.Duration to ~1 ms
	for _, tc := range []struct{ method, params string }{
		{"events.subscribe", `{"channel":"user.x","since":` + unsafe + `}`},
		{"events.subscribe", `{"channel":"user.x","since":` + huge + `}`},
		{"events.subscribe", `{"channel":"user.x","since":-1}`},
		{"events.read", `{"channel":"user.x","since":` + unsafe + `}`},
		{"events.read", `{"channel":"user.x","limit":` + unsafe + `}`},
		{"events.read", `{"channel":"user.x","limit":-1}`},
		{"exec", `{"src":"1","timeout_ms":` + overflowMS + `}`},
		{"exec", `{"src":"1","timeout_ms":` + unsafe + `}`},
		{"exec", `{"src":"1","elide":{"max_bytes":` + unsafe + `}}`},
		{"task.await", `{"task":"task:1","timeout_ms":` + overflowMS + `}`},
		{"value.get", `{"ref":"out:1","slice":[-1,2]}`},
		{"value.get", `{"ref":"out:1","slice":[0,` + unsafe + `]}`},
		{"complete", `{"src":"pri","cursor":-1}`},
	} {
		c.id++
		c.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.id, tc.method, tc.params))
		r := c.recv()
		if r.Error == nil || r.Error.Code != proto.CodeInvalidParams {
			t.Errorf("%s %s: got %+v, want -32602", tc.method, tc.params, r.Error)
		}
	}
	// Nothing was seeded or subscribed.
	var p publishResult
	c.ok("events.publish", map[string]any{"channel": "user.x", "payload": 1}, &p)
	if p.Seq != 1 {
		t.Errorf("a refused subscribe seeded user.x: next seq %d", p.Seq)
	}
	c.ok("kernel.info", nil, nil) // the next frame is an answer, not an event
}

// TestSubscribeSinceMaxSafe: 2^53-1 is a valid cursor but beyond what
// the kernel continues numbering after; the channel starts at 1.
func TestSubscribeSinceMaxSafe(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	c.ok("events.subscribe", map[string]any{"channel": "user.x", "since": uint64(1<<53 - 1)}, nil)
	pub := k.dial(t) // publishes without receiving the events
	pub.attach("", "")
	var p publishResult
	pub.ok("events.publish", map[string]any{"channel": "user.x", "payload": 1}, &p)
	if p.Seq != 1 {
		t.Fatalf("seq %d after since 2^53-1, want 1", p.Seq)
	}
	// A cursor the kernel does continue after.
	d := k.dial(t)
	d.attach("", "")
	d.ok("events.subscribe", map[string]any{"channel": "user.y", "since": 41}, nil)
	pub.ok("events.publish", map[string]any{"channel": "user.y", "payload": 1}, &p)
	if p.Seq != 42 {
		t.Fatalf("seq %d after since 41, want 42", p.Seq)
	}
}

// TestRefusedSubscribeDoesNotSeed: a subscribe refused at the
// per-connection limit leaves the channel's numbering alone.
func TestRefusedSubscribeDoesNotSeed(t *testing.T) {
	k := startKernelLimits(t, func(l *Limits) { l.EventChannels = 2 * events.MaxSubscriptionsPerSubscriber })
	c := k.dial(t)
	c.attach("", "")
	for i := range events.MaxSubscriptionsPerSubscriber {
		c.ok("events.subscribe", map[string]any{"channel": fmt.Sprintf("user.s%d", i)}, nil)
	}
	c.fail("events.subscribe", map[string]any{"channel": "user.seed", "since": 1 << 40}, proto.CodeInvalidParams)
	other := k.dial(t)
	other.attach("", "")
	var p publishResult
	other.ok("events.publish", map[string]any{"channel": "user.seed", "payload": 1}, &p)
	if p.Seq != 1 {
		t.Fatalf("refused subscribe seeded the channel: seq %d", p.Seq)
	}
}

// TestEventChannelsQuota: with every channel of the session subscribed,
// a publish or subscribe on one more is QUOTA_EXCEEDED naming the budget;
// an emit from Shoal code is quota_exceeded.
func TestEventChannelsQuota(t *testing.T) {
	k := startKernelLimits(t, func(l *Limits) { l.EventChannels = 2 })
	watcher := k.dial(t) // holds the subscriptions; c sees no events
	watcher.attach("q", "")
	watcher.ok("events.subscribe", map[string]any{"channel": "user.a"}, nil)
	watcher.ok("events.subscribe", map[string]any{"channel": "user.b"}, nil)
	c := k.dial(t)
	c.attach("q", "")
	r := c.fail("events.publish", map[string]any{"channel": "user.c", "payload": 1}, proto.CodeLeashDenied)
	if budgetOf(t, r) != events.BudgetScopeChannels {
		t.Errorf("budget %s", r.Error.Data)
	}
	c.fail("events.subscribe", map[string]any{"channel": "user.c"}, proto.CodeLeashDenied)
	r = c.fail("exec", map[string]any{"src": `channel("user.c").emit(1)`}, proto.CodeRaised)
	var data struct {
		Code string `json:"code"`
	}
	json.Unmarshal(r.Error.Data, &data)
	if data.Code != "quota_exceeded" {
		t.Errorf("emit past the channel budget: %s", r.Error.Data)
	}
	// Subscribed channels and the kernel's own are still served.
	c.ok("exec", map[string]any{"src": `channel("user.a").emit(2)`}, nil)
}

func TestEmitOverPayloadBoundIsRefused(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	r := c.fail("exec", map[string]any{"src": `channel("user.big").emit((0..10000).map(x => "xxxxxxxxxx").join(""))`}, proto.CodeRaised)
	if !strings.Contains(string(r.Error.Data), "quota_exceeded") {
		t.Errorf("got %s", r.Error.Data)
	}
	var rd eventsReadResult
	c.ok("events.read", map[string]any{"channel": "user.big"}, &rd)
	if len(rd.Events) != 0 {
		t.Errorf("the refused emit was published: %d events", len(rd.Events))
	}
}

// TestEventSessionMemoryBounded publishes 64 KiB payloads over many
// channels: the session retains at most its budget.
func TestEventSessionMemoryBounded(t *testing.T) {
	const budget = 1 << 20
	k := startKernelLimits(t, func(l *Limits) { l.EventSessionMemory = budget })
	c := k.dial(t)
	c.attach("mem", "")
	payload := strings.Repeat("p", 64<<10-100)
	for i := range 200 {
		c.ok("events.publish", map[string]any{"channel": fmt.Sprintf("user.c%d", i), "payload": payload}, nil)
	}
	inScope, total := k.srv.bus.RetainedBytes(events.Scope{Principal: k.srv.local, Session: "mem"})
	if inScope > budget || total > budget {
		t.Fatalf("retained %d in the session, %d in all; budget %d", inScope, total, budget)
	}
	var rd eventsReadResult
	c.ok("events.read", map[string]any{"channel": "user.c199"}, &rd)
	if len(rd.Events) != 1 {
		t.Errorf("the newest event was not retained")
	}
}

func TestTranscriptSrcIsBounded(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	src := strings.Repeat("1 + 1; ", 3000) // long, but shallower than syntax.MaxDepth
	c.ok("exec", map[string]any{"src": src}, nil)
	var tr struct {
		Events []struct {
			Payload transcriptEvent `json:"payload"`
		} `json:"events"`
	}
	c.ok("events.read", map[string]any{"channel": "session.transcript"}, &tr)
	if len(tr.Events) != 1 {
		t.Fatalf("%d transcript events", len(tr.Events))
	}
	ev := tr.Events[0].Payload
	if len(ev.Src) != MaxTranscriptSrc || !ev.SrcTruncated || !strings.HasPrefix(src, ev.Src) {
		t.Errorf("transcript src of %d bytes, truncated %v", len(ev.Src), ev.SrcTruncated)
	}
}
