package kernel

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/internal/value"
)

// The events bridge: user.* channels are mirrored between a session's
// language channel bus and the kernel event bus. A client publish is
// injected into the language bus; a language emit is injected into the
// kernel bus under the session's scope. Both directions inject (publish
// without forwarding), so nothing echoes. Kernel-owned channels never
// cross: the language side forwards only user.* names.

// bridgeSession installs the session's language-to-kernel forwarder.
func (s *Server) bridgeSession(sess *session) {
	scope := sess.scope()
	sess.interp.Channels().SetForwarder(func(channel string, payload value.Value) error {
		if !events.CanClientPublish(channel) {
			return nil
		}
		b, err := value.JSONText(payload, false)
		if err != nil {
			// Closures, streams and the like have no JSON form: mirror
			// their inline rendering, no longer than a payload may be.
			text, _ := value.InlineLimit(payload, MaxEventPayload+1)
			b, _ = json.Marshal(text)
		}
		if len(b) > MaxEventPayload {
			return value.Errorf(value.CodeQuotaExceeded, "an event on %s may hold at most %d bytes of JSON; this one has %d", channel, MaxEventPayload, len(b))
		}
		if _, err := s.bus.Inject(scope, channel, b); err != nil {
			return value.Errorf(value.CodeQuotaExceeded, "%s", err.Error())
		}
		return nil
	})
}

// bridgeToLanguage delivers a client-published event to the session's
// language channel bus.
func bridgeToLanguage(sess *session, ev events.Event) {
	if !strings.HasPrefix(ev.Channel, eval.BridgePrefix) {
		return
	}
	v, err := value.ParseJSON(ev.Payload)
	if err != nil {
		v = value.Str(ev.Payload)
	}
	// A language budget refusing the copy loses only the language-side
	// copy; the kernel event stands.
	_ = sess.interp.Channels().Inject(ev.Channel, v, time.Unix(0, ev.TS))
}
