package events

import (
	"encoding/json"
	"fmt"
	"testing"
)

// A new channel in a full scope takes the ring of the stream it forgets:
// the array is reused (one allocation fewer a task's stream), holds none
// of the forgotten events, and both channels read as they should.
func TestForgottenRingHandedOn(t *testing.T) {
	b := New(WithLimits(Limits{ScopeChannels: 2}))
	for _, ch := range []string{"task.1", "task.2"} {
		published(t)(b.Publish(alice, ch, json.RawMessage(`"running"`)))
		published(t)(b.Publish(alice, ch, json.RawMessage(`"finished"`)))
	}
	b.mu.Lock()
	old := b.scopes[alice].streams["task.1"]
	oldRing := &old.ring[0]
	b.mu.Unlock()
	published(t)(b.Publish(alice, "task.3", json.RawMessage(`"new"`))) // forgets task.1, the idlest
	b.mu.Lock()
	st := b.scopes[alice].streams["task.3"]
	same := len(st.ring) > 0 && &st.ring[0] == oldRing
	var stale []string
	for i := range st.ring[st.n:] {
		if r := st.ring[st.n+i]; r.ev.Payload != nil || r.ev.Seq != 0 {
			stale = append(stale, string(r.ev.Payload))
		}
	}
	b.mu.Unlock()
	if !same {
		t.Error("the new stream did not take the forgotten stream's ring")
	}
	if len(stale) > 0 {
		t.Errorf("the handed-on ring still holds forgotten events: %v", stale)
	}
	if got := b.Read(alice, "task.1", 0, 10); len(got) != 0 || b.LatestSeq(alice, "task.1") != 0 {
		t.Errorf("the forgotten channel reads %d events, seq %d", len(got), b.LatestSeq(alice, "task.1"))
	}
	got := b.Read(alice, "task.3", 0, 10)
	if len(got) != 1 || string(got[0].Payload) != `"new"` || got[0].Seq != 1 {
		t.Fatalf("task.3 reads %v", got)
	}
	published(t)(b.Publish(alice, "task.3", json.RawMessage(`"more"`)))
	if got := b.Read(alice, "task.3", 0, 10); len(got) != 2 || string(got[1].Payload) != `"more"` {
		t.Fatalf("task.3 reads %v after a second event", got)
	}
}

// A forgotten stream's large ring is not handed on.
func TestLargeRingNotHandedOn(t *testing.T) {
	b := New(WithLimits(Limits{ScopeChannels: 1}))
	for i := range maxSpareRing + 1 {
		published(t)(b.Publish(alice, "user.big", json.RawMessage(fmt.Sprint(i))))
	}
	published(t)(b.Publish(alice, "user.next", nil))
	b.mu.Lock()
	n := len(b.scopes[alice].streams["user.next"].ring)
	b.mu.Unlock()
	if n > maxSpareRing {
		t.Fatalf("the new stream's ring has %d records: the large ring was handed on", n)
	}
}
