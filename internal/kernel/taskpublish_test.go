package kernel

import (
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/internal/tasks"
)

// TestPublishTaskAsPublishJSON: publishTask and publishRender put on the
// bus exactly what publishJSON did (same channel, same payload bytes),
// and a session's task channel names follow its tasks: a name reused
// for a task's next event is that task's, never the previous one's.
func TestPublishTaskAsPublishJSON(t *testing.T) {
	s := &Server{bus: events.New(), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	scope := events.Scope{Principal: "p", Session: "s"}
	other := events.Scope{Principal: "p", Session: "other"}
	var names taskChannelName
	recs := []tasks.Record{
		{Task: "task:7", Session: "s", State: tasks.Running, StartedNs: 1, Foreground: true},
		{Task: "task:7", Session: "s", State: tasks.Completed, StartedNs: 1, FinishedNs: 2, ResultRef: "out:3", Foreground: true},
		{Task: "task:8", Session: "s", State: tasks.Failed, StartedNs: 3, FinishedNs: 4, Err: errors.New("boom \"quoted\"")},
		{Task: "task:7", Session: "s", State: tasks.Cancelled, StartedNs: 1, FinishedNs: 5},
	}
	for _, r := range recs {
		s.publishTask(scope, &names, r)
		s.publishJSON(other, r.Channel(), taskEvent(r))
	}
	s.publishRender(scope, renderEvent{Ref: "out:3", Render: "2\n\"x\""})
	s.publishJSON(other, events.ChannelRender, renderEvent{Ref: "out:3", Render: "2\n\"x\""})
	for _, ch := range []string{"task.7", "task.8", events.ChannelRender} {
		got := s.bus.Read(scope, ch, 0, 100)
		want := s.bus.Read(other, ch, 0, 100)
		if len(got) == 0 || len(got) != len(want) {
			t.Fatalf("%s: %d events, want %d (and some)", ch, len(got), len(want))
		}
		for i := range got {
			if got[i].Channel != want[i].Channel || string(got[i].Payload) != string(want[i].Payload) {
				t.Errorf("%s event %d: %s %s, want %s %s", ch, i, got[i].Channel, got[i].Payload, want[i].Channel, want[i].Payload)
			}
		}
	}
	if n := len(s.bus.Read(scope, "task.7", 0, 100)); n != 3 {
		t.Errorf("task.7 holds %d events, want 3", n)
	}
}
