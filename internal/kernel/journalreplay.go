package kernel

import (
	"slices"
	"strconv"

	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/internal/policy"
)

// Durable replay of the journal and session.transcript channels (see
// docs/kernel.md, "Events"). When the kernel keeps a journal, both
// channels are numbered by it: a finished exec row's Seq is its number on
// the journal channel and its TSeq (runs with a transcript event) its
// number on its session's session.transcript channel. The journal tells
// rowFinished of each row, in Seq order, as the commit that finishes it
// succeeds, and both events are published from there with those numbers
// and the row's finish time, so publish order is seq order. A reader whose
// since is older than what the bus's ring retains (after a restart, all
// of it) gets the older part rebuilt from the rows by the same payload
// builders, so a replayed event is the live one, byte for byte.

// journalScope is the one answer to which journal rows a caller with
// grants g, attached as principal, may read (journal.query, the journal
// channel's live events and its replay, and the language's journal
// builtins): ok false, none (no journal_read); principals nil, every
// principal's (journal_read_all); otherwise its own.
func journalScope(g *policy.Grants, principal string) (principals []string, ok bool) {
	if g == nil || !g.JournalRead {
		return nil, false
	}
	if g.CanReadAllJournal() {
		return nil, true
	}
	return []string{principal}, true
}

// scopeAdmits reports whether a journalScope answer lets its reader see
// a row of principal p.
func scopeAdmits(principals []string, ok bool, p string) bool {
	return ok && (principals == nil || slices.Contains(principals, p))
}

// journalPayload is the journal channel's payload for row e: the pinned
// entry shape without the AST (the event is a notice; journal.query has
// it) and with the source cut like a transcript event's.
func journalPayload(e *journal.Entry) ([]byte, error) {
	return appendEntryJSON(nil, e, true), nil
}

// ownPayload is journalPayload as a reader who may see only its own rows
// sees it: the row named by its own id (PID).
func ownPayload(e *journal.Entry) []byte {
	own := *e
	own.ID = e.PID
	return appendEntryJSON(nil, &own, true)
}

// livePayloads is journalPayload and ownPayload of a row at once, for
// the live event published as the row's log write completes: the entry is
// encoded once, into one buffer sized for both, and the own payload is
// the same bytes behind its own id (the id is the first member, and
// nothing after it depends on it). Encoding each from nothing, twice, was
// the kernel's largest allocation per exec.
func livePayloads(e *journal.Entry) (all, own []byte) {
	n := entryEventSize(e)
	b := make([]byte, 0, 2*n+24)
	b = appendEntryJSON(b, e, true)
	all = b[:len(b):len(b)]
	rest := all[len(`{"id":`)+len(strconv.AppendInt(nil, e.ID, 10)):]
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, e.PID, 10)
	b = append(b, rest...)
	return all, b[len(all):len(b):len(b)]
}

// entryEventSize is about the size of e's journal event payload
// (appendEntryJSON with event set), escapes aside.
func entryEventSize(e *journal.Entry) int {
	n := 320 + len(e.Session) + len(e.Principal) + len(e.Cwd) + min(len(e.Src), MaxTranscriptSrc) +
		len(e.Effects) + len(e.Verdict)
	for _, o := range e.Outputs {
		n += 48 + len(o.Kind) + len(o.Hash)
	}
	return n
}

// transcriptPayload is the session.transcript payload for row e.
func transcriptPayload(e *journal.Entry) []byte {
	return newTranscriptEvent(refName(int(e.RefN)), e.Src, e.OK, e.Code).AppendJSON(nil)
}

// rowFinished is the journal's OnFinish hook: it publishes the row's
// journal event and, when it has one, its transcript event. It runs under
// the lock that orders the journal's log writes (the rows go out in seq
// order), so it only encodes and publishes. An event nobody subscribes
// to is not built: the bus lets its stream's retained events go and
// readers rebuild them from the rows (events.Bus.SkipUnwatched).
func (s *Server) rowFinished(e *journal.Entry) {
	if e.Seq != 0 && !s.bus.SkipUnwatched(events.Scope{}, events.ChannelJournal, e.Seq) {
		s.announce(e)
	}
	if e.TSeq != 0 {
		scope := events.Scope{Principal: e.Principal, Session: e.Session}
		if s.bus.SkipUnwatched(scope, events.ChannelTranscript, e.TSeq) {
			return
		}
		if _, err := s.bus.PublishAt(scope, events.ChannelTranscript, nil, e.TSeq, e.FinishNS, transcriptPayload(e)); err != nil {
			s.log.Warn("transcript event not published", "err", err)
		}
	}
}

// announce publishes a finished row on the journal channel, for its
// principal when the policy grants it journal_read and for every
// principal the policy lets read the whole journal; each reader's view
// (durableView) narrows that further to what its attachment may read.
func (s *Server) announce(e *journal.Entry) {
	b, own := livePayloads(e)
	aud := events.Audience{Principals: s.journalReaders()}
	if !slices.Contains(aud.Principals, e.Principal) && s.policy.For(e.Principal, e.Principal == s.local).JournalRead {
		aud.Principals = append(slices.Clip(aud.Principals), e.Principal)
	}
	scope := events.Scope{Principal: e.Principal, Session: e.Session}
	if _, err := s.bus.PublishAtScoped(scope, events.ChannelJournal, &aud, e.Seq, e.PSeq, e.FinishNS, b, own); err != nil {
		s.log.Debug("journal event not published", "err", err)
	}
}

// seedJournalChannel makes the journal channel's stream start at the
// journal's last seq, so its numbering is the journal's from the start.
func (s *Server) seedJournalChannel() {
	if err := s.bus.Seed(events.Scope{}, events.ChannelJournal, s.journal.db.LastSeq()); err != nil {
		s.log.Warn("journal channel not seeded", "err", err)
	}
}

// durableView is how attachment a reads and follows channel when the
// journal numbers it; ok false when it does not (no journal, another
// channel).
func (s *Server) durableView(a *attachment, channel string) (v events.View, ok bool) {
	if s.journal == nil {
		return events.View{}, false
	}
	switch channel {
	case events.ChannelJournal:
		principals, may := journalScope(a.grants, a.principal)
		v.Visible = func(o events.Scope) bool { return scopeAdmits(principals, may, o.Principal) }
		if !may {
			v.Backfill = func(events.BackfillQuery) ([]events.Event, bool, error) { return nil, false, nil }
			return v, true
		}
		own, isOwn := ownJournal(principals)
		v.Backfill = s.rowBackfill(channel, journal.SeqQuery{Principals: principals}, isOwn)
		if isOwn {
			// It sees only its own rows: numbered among them alone, so
			// its seqs have no gaps that count other principals' runs.
			v.Renumber = func(since uint64) (uint64, error) { return s.journal.db.SeqOfPSeq(own, since) }
		}
		return v, true
	case events.ChannelTranscript:
		sc := a.sess.scope()
		v.Backfill = s.rowBackfill(channel, journal.SeqQuery{Transcript: true, Principal: sc.Principal, Session: sc.Session}, false)
		return v, true
	}
	return events.View{}, false
}

// ownJournal reports whether a journalScope answer is one principal's
// own rows, and whose.
func ownJournal(principals []string) (string, bool) {
	if len(principals) != 1 {
		return "", false
	}
	return principals[0], true
}

// lastDurableSeq is the journal's last number on channel as a sees it
// (0 when unknown): a since beyond it names no event yet.
func (s *Server) lastDurableSeq(a *attachment, channel string) uint64 {
	sc := a.sess.scope()
	if channel == events.ChannelJournal {
		principals, _ := journalScope(a.grants, a.principal)
		if own, ok := ownJournal(principals); ok {
			p, err := s.journal.db.LastPSeq(own)
			if err != nil {
				s.log.Warn("events.subscribe: journal read failed", "err", err)
			}
			return p
		}
	}
	last := s.bus.LatestSeq(sc, channel)
	if channel == events.ChannelJournal {
		return max(last, s.journal.db.LastSeq())
	}
	t, err := s.journal.db.LastTSeq(sc.Principal, sc.Session)
	if err != nil {
		s.log.Warn("events.subscribe: journal read failed", "err", err)
		return last
	}
	return max(last, t)
}

// rowBackfill answers the bus's backfill queries for channel from the
// rows base selects (with own, named by their own ids: the reader may see
// only its own rows), ReplayPageRows at a time. A forward query (a
// subscription catching up) stops at ReplayBatchBytes of payload, a tail
// query (events.read) at ReplayReadBytes, keeping the newest.
func (s *Server) rowBackfill(channel string, base journal.SeqQuery, own bool) events.Backfill {
	j := s.journal
	transcript := base.Transcript
	return func(q events.BackfillQuery) ([]events.Event, bool, error) {
		budget := int64(ReplayBatchBytes)
		if q.Tail {
			budget = ReplayReadBytes
		}
		var pages [][]events.Event
		var size int64
		n := 0
		after, before := q.After, q.Before
		for n < q.Limit {
			sq := base
			sq.After, sq.Before, sq.Tail = after, before, q.Tail
			sq.Limit = min(ReplayPageRows, q.Limit-n)
			j.replay <- struct{}{}
			rows, err := j.db.BySeq(sq)
			<-j.replay
			if err != nil {
				s.log.Warn("events replay: journal read failed", "channel", channel, "err", err)
				return nil, false, err
			}
			page := make([]events.Event, 0, len(rows))
			for i := range rows {
				e := &rows[i]
				ev := events.Event{Channel: channel, Seq: e.Seq, TS: e.FinishNS, ScopeSeq: e.PSeq}
				switch {
				case transcript:
					ev.Seq, ev.Payload = e.TSeq, transcriptPayload(e)
				case own: // the renumbering view keeps this payload
					ev.Payload = ownPayload(e)
				default:
					if ev.Payload, err = journalPayload(e); err != nil {
						continue
					}
				}
				page = append(page, ev)
				size += int64(len(ev.Payload)) + events.RecordOverhead
			}
			pages = append(pages, page)
			n += len(page)
			if len(rows) < sq.Limit {
				return joinPages(pages, q.Tail), false, nil
			}
			if size >= budget {
				return joinPages(pages, q.Tail), true, nil
			}
			if q.Tail {
				before = seqOf(&rows[0], transcript)
			} else {
				after = seqOf(&rows[len(rows)-1], transcript)
			}
		}
		return joinPages(pages, q.Tail), true, nil
	}
}

func seqOf(e *journal.Entry, transcript bool) uint64 {
	if transcript {
		return e.TSeq
	}
	return e.Seq
}

// joinPages puts pages read oldest first (forward) or newest first (tail)
// into one run, oldest first.
func joinPages(pages [][]events.Event, tail bool) []events.Event {
	if tail {
		slices.Reverse(pages)
	}
	var out []events.Event
	for _, p := range pages {
		out = append(out, p...)
	}
	return out
}
