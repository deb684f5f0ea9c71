package kernel

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/proto"
)

type eventFrame struct {
	Method string      `json:"method"`
	ID     *int        `json:"id"`
	Params proto.Event `json:"params"`
}

func TestEventsPublishReadSubscribe(t *testing.T) {
	k := startKernel(t)
	pub := k.dial(t)
	pub.attach("ev", "")
	var p1, p2 publishResult
	pub.ok("events.publish", map[string]any{"channel": "user.build", "payload": map[string]any{"phase": "start"}}, &p1)
	pub.ok("events.publish", map[string]any{"channel": "user.build", "payload": "done"}, &p2)
	if p1.Channel != "user.build" || p1.Seq != 1 || p2.Seq != 2 || p2.TS < p1.TS {
		t.Errorf("publish results %+v %+v", p1, p2)
	}
	var rd eventsReadResult
	pub.ok("events.read", map[string]any{"channel": "user.build", "since": 1}, &rd)
	if len(rd.Events) != 1 || rd.Events[0].Seq != 2 {
		t.Errorf("read since 1 = %+v", rd)
	}
	pub.ok("events.read", map[string]any{"channel": "user.nothing"}, &rd)
	if rd.Channel != "user.nothing" || rd.Events == nil || len(rd.Events) != 0 {
		t.Errorf("unknown channel = %+v", rd)
	}
	pub.fail("events.publish", map[string]any{"channel": "journal", "payload": 1}, proto.CodeInvalidParams)
	pub.fail("events.publish", map[string]any{"payload": 1}, proto.CodeInvalidParams)
	pub.fail("events.read", map[string]any{"channel": "user.build", "limit": -1}, proto.CodeInvalidParams)

	// A subscriber on the same session replays from since and gets live events.
	sub := k.dial(t)
	sub.attach("ev", "")
	sub.sendRaw(`{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"channel":"user.build","since":1}}`)
	var gotReplay, gotAck bool
	for !(gotReplay && gotAck) {
		line, err := sub.readLine()
		if err != nil {
			t.Fatal(err)
		}
		var f eventFrame
		json.Unmarshal(line, &f)
		switch {
		case f.Method == "event":
			if f.Params.Seq != 2 || f.Params.Channel != "user.build" {
				t.Errorf("replayed %s", line)
			}
			gotReplay = true
		case f.ID != nil && *f.ID == 1:
			gotAck = true
		}
	}
	pub.ok("events.publish", map[string]any{"channel": "user.build", "payload": 3}, nil)
	line, err := sub.readLine()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(line), `"method":"event"`) || !strings.Contains(string(line), `"seq":3`) {
		t.Errorf("live event %s", line)
	}

	// Another principal's session with the same name sees nothing.
	_, secret := k.token(t, "agent:x", "p")
	other := k.dial(t)
	other.attach("ev", secret)
	other.ok("events.read", map[string]any{"channel": "user.build"}, &rd)
	if len(rd.Events) != 0 {
		t.Errorf("events crossed principals: %+v", rd)
	}

	// After unsubscribe no more events arrive: the next frame is a reply.
	var un map[string]any
	sub.ok("events.unsubscribe", map[string]any{"channel": "user.build"}, &un)
	if un["unsubscribed"] != true {
		t.Errorf("unsubscribe = %v", un)
	}
	pub.ok("events.publish", map[string]any{"channel": "user.build", "payload": 4}, nil)
	sub.ok("kernel.info", nil, nil)
}

func TestExecPublishesTranscript(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	c.attach("", "")
	c.ok("exec", map[string]any{"src": "1 + 1"}, nil)
	c.fail("exec", map[string]any{"src": "1 / 0"}, proto.CodeRaised)
	var tr struct {
		Events []struct {
			Seq     uint64          `json:"seq"`
			Payload transcriptEvent `json:"payload"`
		} `json:"events"`
	}
	c.ok("events.read", map[string]any{"channel": "session.transcript"}, &tr)
	want := []transcriptEvent{{Ref: "out:1", Src: "1 + 1", OK: true}, {Ref: "out:2", Src: "1 / 0", Code: "div_zero"}}
	if len(tr.Events) != 2 || tr.Events[0].Payload != want[0] || tr.Events[1].Payload != want[1] {
		t.Errorf("transcript events %+v", tr)
	}
	var rd eventsReadResult
	c.ok("events.read", map[string]any{"channel": "render"}, &rd)
	if len(rd.Events) != 1 {
		t.Errorf("render events %+v", rd)
	}
}
