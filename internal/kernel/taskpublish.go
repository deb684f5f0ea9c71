package kernel

import (
	"sync"

	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/internal/tasks"
)

// publishTask publishes the task record r on its task.N channel in scope:
// what publishJSON(scope, r.Channel(), taskEvent(r)) does, without boxing
// the record into an interface (a copy of it on the heap) and without
// building the channel's name anew for each of a task's events (names,
// the session's last one). Every exec publishes two of these.
func (s *Server) publishTask(scope events.Scope, names *taskChannelName, r tasks.Record) {
	s.publishEncoded(scope, names.of(r), encodeEvent(taskEvent(r)))
}

// publishRender publishes ev on the session's render channel, as
// publishJSON would without boxing it.
func (s *Server) publishRender(scope events.Scope, ev renderEvent) {
	s.publishEncoded(scope, events.ChannelRender, encodeEvent(ev))
}

// encodeEvent is ev's JSON encoding in a slice of its own (the bus keeps
// the payload), encoded into a pooled buffer and copied once at its size.
// Generic over the event's type so that ev is not boxed into an interface.
func encodeEvent[E jsonAppender](ev E) []byte {
	sp := eventScratch.Get().(*[]byte)
	enc := ev.AppendJSON((*sp)[:0])
	b := append([]byte(nil), enc...)
	if cap(enc) <= maxPooledScratch {
		*sp = enc
		eventScratch.Put(sp)
	}
	return b
}

// publishEncoded publishes the encoded payload b on channel in scope; one
// the bus refuses is logged and dropped, as publishJSON does.
func (s *Server) publishEncoded(scope events.Scope, channel string, b []byte) {
	if _, err := s.bus.Publish(scope, channel, b); err != nil {
		s.log.Warn("dropping event", "channel", channel, "err", err)
	}
}

// taskChannelName remembers the channel name of a session's last task
// that published, so that its next event (a task's running and finished
// records come one after the other) reuses the string.
type taskChannelName struct {
	mu            sync.Mutex
	task, channel string
}

// of is r.Channel(), reused when r is the last task named.
func (n *taskChannelName) of(r tasks.Record) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.task != r.Task || n.channel == "" {
		n.task, n.channel = r.Task, r.Channel()
	}
	return n.channel
}
