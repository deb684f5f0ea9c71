package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"

	"github.com/shoalgo/shoal/internal/cas"
	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// out:N across restarts (docs/kernel.md, "value.get"). A row records the N
// its value (or raised error) was stored as, and its "value" output keeps
// the value: the answered wire JSON when nothing in it was elided (the
// common small answer, stored as it was sent, at no extra cost); when the
// answer was elided, the value's whole wire encoding if that is at most
// MaxJournalValue bytes, so value.get can drill into the parts the answer
// elided after the session that held them is gone; past that, only the
// elided answer. A session numbers its values above the journal's largest
// N for its (principal, name), so out:N names one value across restarts.

// elidedTag marks an elided part in wire JSON. Keys and strings are
// escaped, and every wire value is a tagged object, so the sequence occurs
// only as a ref's tag.
var elidedTag = []byte(`"$":"ref"`)

// journalValue is what a row keeps as the value output of v, answered as
// answer.
func journalValue(v value.Value, answer []byte) []byte {
	if !bytes.Contains(answer, elidedTag) {
		return answer
	}
	if full, ok := fullWire(v, min(MaxJournalValue, cas.MaxGetBytes)); ok {
		return full
	}
	return answer
}

// fullWire is v's wire encoding with nothing elided, when it is at most
// bound bytes. A value whose memory footprint is already past bound is
// not encoded (an encoding is never much smaller than the data), so the
// work is bounded by the footprint check and an encoding of at most a few
// times bound.
func fullWire(v value.Value, bound int) ([]byte, bool) {
	if leafOver(v, bound) {
		return nil, false
	}
	fp := value.Footprint(v, int64(bound))
	if fp > int64(bound) {
		return nil, false
	}
	b, err := value.AppendWire(make([]byte, 0, min(2*int(fp)+64, bound)), v)
	if err != nil || len(b) > bound {
		return nil, false
	}
	return b, true
}

// journalRef is out:n of sess as the journal kept it: the value, or when
// only an elided answer was kept, nil and that answer. ok is false when
// the journal has no value for it (or the kernel keeps no journal).
func (s *Server) journalRef(sess *session, n int) (v value.Value, answer json.RawMessage, ok bool) {
	j := s.journal
	if j == nil {
		return nil, nil, false
	}
	row, err := j.db.ByRef(sess.key.principal, sess.key.name, int64(n))
	if err != nil {
		if !errors.Is(err, journal.ErrNotFound) {
			s.log.Warn("value.get: journal read failed", "err", err)
		}
		return nil, nil, false
	}
	for _, o := range row.Outputs {
		if o.Kind != journal.OutValue || o.Len > cas.MaxGetBytes {
			continue
		}
		data, total, err := j.cas.Get(o.Hash, 0, o.Len)
		if err != nil || total != int64(len(data)) {
			if errors.Is(err, cas.ErrCorrupt) || errors.Is(err, cas.ErrNotFound) {
				j.forget(o.Hash)
			}
			s.log.Warn("value.get: stored value unreadable", "hash", o.Hash, "err", err)
			return nil, nil, false
		}
		v, err := value.FromWire(data)
		if errors.Is(err, value.ErrElided) {
			return nil, data, true
		}
		if err != nil {
			s.log.Warn("value.get: stored value does not decode", "hash", o.Hash, "err", err)
			return nil, nil, false
		}
		return v, data, true
	}
	return nil, nil, false
}

// onlyElided answers a value.get into a value of which only the elided
// answer outlived its session.
func onlyElided(ref string) error {
	return proto.NewError(proto.CodeUnknownRef, "unknown ref "+quoteRef(ref)+
		": only its elided answer was kept (the value was larger than the journal keeps whole); ask for it without path, slice or format", nil)
}

// continueRefs makes a new session number its values above the largest
// out:N its (principal, name) ever recorded.
func (s *Server) continueRefs(sess *session) {
	if s.journal == nil {
		return
	}
	n, err := s.journal.db.MaxRef(sess.key.principal, sess.key.name)
	if err != nil {
		s.log.Warn("session refs start at out:1: journal read failed", "err", err)
		return
	}
	if n > 0 && n < math.MaxInt32 {
		sess.mu.Lock()
		sess.seq, sess.start = int(n), int(n)+1
		sess.mu.Unlock()
	}
}
