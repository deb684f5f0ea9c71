package kernel

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/internal/value"
)

// evalJournal is the kernel's journal as a session's language sees it
// (eval.JournalSource): what the journal, history and undo builtins read.
// It answers what journal.query would answer the session's principal:
// nothing without journal_read (asked of the session's current grants at
// every call, so a narrowed token loses it at once), only its own rows
// without journal_read_all.
type evalJournal struct {
	store     *journalStore
	principal string
	gate      *sessionGate
}

// evalJournalFor is the session's journal source; nil when the kernel
// keeps no journal (the builtins then answer unavailable).
func (s *Server) evalJournalFor(principal string, gate *sessionGate) eval.JournalSource {
	if s.journal == nil {
		return nil
	}
	return &evalJournal{store: s.journal, principal: principal, gate: gate}
}

func (j *evalJournal) Principal() string { return j.principal }

// grants are the session's current grants, or a denial of journal_read.
func (j *evalJournal) grants() (*policy.Grants, error) {
	g := j.gate.current().grants
	if g == nil || !g.JournalRead {
		return nil, host.Denied(host.Op{Effect: policy.JournalRead}, "journal_read = false")
	}
	return g, nil
}

func (j *evalJournal) Query(_ context.Context, f eval.JournalFilter) ([]eval.JournalEntry, error) {
	g, err := j.grants()
	if err != nil {
		return nil, err
	}
	q := journal.Query{
		Since: f.Since, Until: f.Until, Principal: f.Principal, Session: f.Session,
		Head: f.Head, OK: f.OK, Limit: f.Limit,
	}
	for _, k := range f.Effects {
		kind, ok := normaliseKind(k)
		if !ok {
			return nil, value.Errorf(value.CodeArg, "journal: unknown effect kind %q", k)
		}
		q.Effects = append(q.Effects, kind)
	}
	q.Principals, _ = journalScope(g, j.principal)
	_, q.OwnIDs = ownJournal(q.Principals)
	entries, _, err := j.store.db.Query(q)
	if errors.Is(err, journal.ErrBadQuery) {
		return nil, value.Errorf(value.CodeArg, "journal: %v", err)
	}
	if err != nil {
		return nil, value.Errorf(value.CodeIO, "journal: %v", err)
	}
	out := make([]eval.JournalEntry, len(entries))
	for i := range entries {
		if q.OwnIDs {
			entries[i].ID = entries[i].PID // its own ids (handleJournalQuery)
		}
		out[i] = j.evalEntry(&entries[i])
	}
	return out, nil
}

func (j *evalJournal) Entry(_ context.Context, id int64) (eval.JournalEntry, error) {
	g, err := j.grants()
	if err != nil {
		return eval.JournalEntry{}, err
	}
	var e journal.Entry
	if g.CanReadAllJournal() {
		e, err = j.store.db.Get(id)
	} else {
		// Its own rows, by their own ids (handleJournalQuery).
		if e, err = j.store.db.GetOwn(j.principal, id); err == nil {
			e.ID = e.PID
		}
	}
	if errors.Is(err, journal.ErrNotFound) || err == nil && !g.CanReadAllJournal() && e.Principal != j.principal {
		// Another principal's row is not told apart from a missing one.
		return eval.JournalEntry{}, value.Errorf(value.CodeNotFound, "journal: no entry %d", id)
	}
	if err != nil {
		return eval.JournalEntry{}, value.Errorf(value.CodeIO, "journal: %v", err)
	}
	return j.evalEntry(&e), nil
}

// evalEntry is a journal row as the language sees it, with the undo
// record its run kept (an "undo" output in the blob store); a record that
// cannot be read makes the entry irreversible, saying so.
func (j *evalJournal) evalEntry(e *journal.Entry) eval.JournalEntry {
	out := eval.JournalEntry{
		ID: e.ID, StartNS: e.StartNS, Session: e.Session, Principal: e.Principal,
		Src: e.Src, OK: e.OK, Status: e.Status, Effects: e.EffectKinds,
	}
	if e.Finished {
		out.FinishNS = max(e.FinishNS, 1)
	}
	for _, o := range e.Outputs {
		if o.Kind != journal.OutUndo {
			out.Outputs = append(out.Outputs, eval.JournalOutput{Kind: o.Kind, Len: o.Len, Ref: "val:" + o.Hash})
			continue
		}
		data, total, err := j.store.cas.Get(o.Hash, 0, 0)
		var rec eval.UndoRecord
		if err == nil && int64(len(data)) == total {
			err = json.Unmarshal(data, &rec)
		} else if err == nil {
			err = errors.New("undo record larger than one read")
		}
		if err != nil {
			out.UndoLost = "undo record unreadable"
			break
		}
		out.Undo, out.UndoLost = rec.Steps, rec.Lost
	}
	return out
}
