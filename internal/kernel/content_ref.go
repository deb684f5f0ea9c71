package kernel

import (
	"context"
	"errors"

	"github.com/shoalgo/shoal/internal/cas"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/internal/value"
)

// evalContent is the kernel's blob store as a session's language sees it
// (eval.ContentSource): what a `val:blake3:` content ref resolves to. It
// answers exactly what blob.get would answer the session's principal: a
// blob some journal row of that principal names (any row's with
// journal_read_all), asked of the session's current grants at every
// call. A hash is not authorization: a blob stored but named only by
// another principal's rows is not_found, like one not stored at all.
type evalContent struct {
	store     *journalStore
	principal string
	gate      *sessionGate
}

// evalContentFor is the session's content source; nil when the kernel
// keeps no journal (refs then answer not_found naming the journal/CAS).
func (s *Server) evalContentFor(principal string, gate *sessionGate) eval.ContentSource {
	if s.journal == nil {
		return nil
	}
	return &evalContent{store: s.journal, principal: principal, gate: gate}
}

func (c *evalContent) Content(_ context.Context, hash string, max int64) ([]byte, error) {
	ref := "val:" + hash
	unknown := func() error {
		return value.Errorf(value.CodeNotFound, "content ref %s is not in the journal/CAS or not readable by you", ref).
			WithHint("a content ref resolves only to a blob of a journal row you may read; pruned rows' blobs are gone")
	}
	if _, err := cas.ParseHash(hash); err != nil {
		return nil, unknown()
	}
	owner := c.principal
	if c.gate.current().grants.CanReadAllJournal() {
		owner = ""
	}
	ok, err := c.store.db.References(hash, owner)
	if errors.Is(err, journal.ErrRefBudget) {
		return nil, value.Errorf(value.CodeTooLarge, "content ref %s: %v", ref, err).
			WithHint("the blob is named by too many rows, and you have too many, for the look-up to tell whether one of yours names it")
	}
	if err != nil {
		return nil, value.Errorf(value.CodeIO, "journal: %v", err)
	}
	if !ok {
		return nil, unknown()
	}
	data, err := c.store.cas.Load(hash, max)
	switch {
	case errors.Is(err, cas.ErrNotFound):
		c.store.forget(hash)
		return nil, unknown()
	case errors.Is(err, cas.ErrCorrupt):
		c.store.forget(hash)
		return nil, value.Errorf(value.CodeIO, "content ref %s is corrupt in the journal/CAS and is not served", ref)
	case errors.Is(err, cas.ErrTooLarge):
		return nil, value.Errorf(value.CodeTooLarge, "content ref %s is larger than %d bytes, the most a method loads", ref, max).
			WithHint("read it in ranges with blob.get")
	case err != nil:
		return nil, value.Errorf(value.CodeIO, "journal/CAS: %v", err)
	}
	return data, nil
}
