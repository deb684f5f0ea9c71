package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/cas"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// The kernel's journal (see docs/kernel.md, "Journal and blobs"): every
// exec in modes run and approved, and every plan.apply, writes one row of
// <state-dir>/journal.db, with its outputs (the value, see journalValue;
// the command output, a raised error's stderr) in the content-addressed store
// <state-dir>/cas/. A row is committed before the exec's answer is sent.
//
// A run whose derived plan has effects commits a start row before it is
// evaluated, so a crash in the middle leaves a row that says it never
// finished; a pure run (no effects, nothing opaque) can do nothing a crash
// would hide, so its row is written once, finished, after it ran: one
// commit instead of two on the commonest exec.

// journalStore is the open journal and blob store of a kernel with a state
// directory.
type journalStore struct {
	db   *journal.DB
	cas  *cas.Store
	lock *os.File // the state directory's lock (statelock.go)

	// known remembers blobs this process stored, so that the same output
	// (the value 2, an empty error) is hashed but not rewritten or
	// re-verified on every exec. Bounded by MaxKnownBlobs; cleared when
	// full.
	mu    sync.Mutex
	known map[string]struct{}

	// replay admits the journal reads of events replays, at most
	// ReplayQueries at once (journalreplay.go).
	replay chan struct{}
	ret    retention // the disk budget (retention.go)
}

// openJournal opens (creating) the journal database and blob store in
// dir, which it creates 0700 if missing.
func openJournal(dir string, l Limits) (*journalStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("kernel: state directory %s: %w", dir, err)
	}
	lock, err := lockStateDir(dir)
	if err != nil {
		return nil, err
	}
	db, err := journal.Open(filepath.Join(dir, "journal.db"))
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("kernel: journal: %w", err)
	}
	cs, err := cas.OpenWith(filepath.Join(dir, "cas"), cas.Options{SmallBlobs: l.JournalSmallBlobs, PackBytes: l.JournalPackBytes})
	if err != nil {
		db.Close()
		lock.Close()
		return nil, fmt.Errorf("kernel: blob store: %w", err)
	}
	return &journalStore{db: db, cas: cs, lock: lock, known: map[string]struct{}{}, replay: make(chan struct{}, ReplayQueries)}, nil
}

// close closes the database and the blob store's small-blob pack, then
// releases the state directory's lock.
func (j *journalStore) close() error {
	err := errors.Join(j.db.Close(), j.cas.Close())
	return errors.Join(err, j.lock.Close())
}

// put stores data in the blob store and returns its output record.
func (j *journalStore) put(kind string, data []byte) (journal.Output, error) {
	// The store hashes data once and asks the known-set about that hash
	// (cas.Store.PutUnless): the blob's address is the store's own sum.
	h, stored, err := j.cas.PutUnless(data, j.isKnown)
	if err != nil {
		return journal.Output{}, err
	}
	if stored {
		j.mu.Lock()
		if len(j.known) >= MaxKnownBlobs {
			clear(j.known)
		}
		j.known[h] = struct{}{}
		j.mu.Unlock()
	}
	return journal.Output{Kind: kind, Hash: h, Len: int64(len(data))}, nil
}

// isKnown reports whether h is among the blobs known to be stored.
func (j *journalStore) isKnown(h string) bool {
	j.mu.Lock()
	_, seen := j.known[h]
	j.mu.Unlock()
	return seen
}

// forget drops h from the blobs known to be stored (blob.get found it
// missing or corrupt), so the next exec with that output writes it again.
func (j *journalStore) forget(h string) {
	j.mu.Lock()
	delete(j.known, h)
	j.mu.Unlock()
}

// execRow is the journal row of one exec while it runs; nil when the
// kernel keeps no journal (every method is a no-op on nil).
type execRow struct {
	s     *Server
	sess  *session
	e     journal.Entry
	begun bool // the start row is committed (e.ID is set)
	pure  bool // the derived plan has no effects and nothing opaque
	// undo collects what undoing the run takes, from the builtins that
	// record it (eval.WithUndoLog); kept with the row as an "undo" output.
	undo eval.UndoLog
	// held are the blobs stored for the row, pending until it commits
	// (retention.go).
	held []string
}

// context returns ctx carrying r's undo log (ctx itself without a row).
func (r *execRow) context(ctx context.Context) context.Context {
	if r == nil {
		return ctx
	}
	return eval.WithUndoLog(ctx, &r.undo)
}

// journalRow starts describing an exec of sess: nothing is written yet.
func (s *Server) journalRow(sess *session, p *execParams) *execRow {
	if s.journal == nil {
		return nil
	}
	sess.mu.Lock()
	cwd := sess.dir
	sess.mu.Unlock()
	r := &execRow{s: s, sess: sess}
	r.e = journal.Entry{
		Kind:      "exec",
		Session:   sess.key.name,
		Principal: sess.key.principal,
		StartNS:   time.Now().UnixNano(),
		Cwd:       cwd,
		Src:       cutUTF8(p.Src, journal.MaxSrcBytes),
		Verdict:   VerdictAllow,
	}
	if !p.runMode() {
		r.e.Verdict = verdictApproved
	}
	return r
}

// verdictApproved is the verdict of a row run by approval (mode
// "approved", plan.apply).
const verdictApproved = "approved"

// plan records the derived plan and AST of the program about to run.
func (r *execRow) plan(p *execParams) {
	if r == nil {
		return
	}
	if p.plan != nil {
		r.e.Effects = journalEffects(p.plan.Effects)
		// The row's kinds come from the plan, not from decoding the JSON
		// just rendered from it (in Begin and again in Finish).
		if kinds, ok := planKinds(p.plan.Effects); ok && r.e.Effects != nil {
			r.e.EffectKinds, r.e.KindsGiven = kinds, true
		}
		r.e.Opaque = p.plan.Opaque
		r.pure = len(p.plan.Effects) == 0 && !p.plan.Opaque
	}
	if p.prog != nil {
		// An AST past the journal's bound is not recorded.
		if enc, err := syntax.EncodeProgram(p.prog, journal.MaxASTBytes); err == nil {
			r.e.SetAST(enc)
		}
	}
}

// begin commits the start row of a run with effects; a pure run's row is
// written whole by finish. An error means nothing may run: the journal
// cannot say it did.
func (r *execRow) begin() error {
	if r == nil || r.pure {
		return nil
	}
	id, err := r.s.journal.db.Begin(&r.e)
	if err != nil {
		r.s.log.Error("journal: start row not written; exec refused", "err", err)
		return proto.NewError(proto.CodeInternalError, "journal unavailable: "+err.Error(), nil)
	}
	r.e.ID, r.begun = id, true
	return nil
}

// refused writes the row of a run policy refused (err is its answer);
// other errors (a parse error) write none.
func (r *execRow) refused(p *execParams, err error) {
	if r == nil {
		return
	}
	var re *proto.RPCError
	if !errors.As(err, &re) {
		return
	}
	switch re.Code {
	case proto.CodeLeashDenied:
		r.e.Verdict = VerdictDeny
	case proto.CodeApprovalRequired:
		r.e.Verdict = VerdictApprovalRequired
	default:
		return
	}
	r.plan(p)
	r.finish(false, nil, nil, nil)
}

// finish commits the finished row: ok, the exit status when the run
// failed with one, and its outputs (value: what journalValue keeps; stdout:
// the command output kept; stderr: a failed command's). Errors are logged:
// the run happened, and its row (if begun) says it never finished.
func (r *execRow) finish(ok bool, status *int, value []byte, out *boundedBuffer, stderr ...[]byte) {
	if r == nil {
		return
	}
	j := r.s.journal
	r.e.OK, r.e.Status = ok, status
	r.e.FinishNS = max(time.Now().UnixNano(), r.e.StartNS)
	add := func(kind string, data []byte) {
		o, err := r.store(kind, data)
		if err != nil {
			r.s.log.Warn("journal: output not stored", "kind", kind, "err", err)
			return
		}
		r.e.Outputs = append(r.e.Outputs, o)
	}
	if value != nil {
		add("value", value)
	}
	if out != nil {
		if b := out.bytes(); len(b) > 0 {
			add("stdout", b)
		}
	}
	for _, b := range stderr {
		if len(b) > 0 {
			add("stderr", b)
		}
	}
	if rec := r.undo.Record(); len(rec.Steps) > 0 || rec.Lost != "" {
		if b, err := appendUndoJSON(make([]byte, 0, 64+64*len(rec.Steps)), rec); err == nil {
			add(journal.OutUndo, b)
		}
	}
	// The journal's OnFinish hook (rowFinished) publishes the row's
	// journal and transcript events as the commit succeeds.
	err := r.commit(j.db)
	r.settle()
	if err != nil {
		r.s.log.Error("journal: row not finished; its events are not published", "id", r.e.ID, "err", err)
	}
}

// commit writes the finished row: a Finish of the begun row, or the whole
// row of a pure or refused run in one statement.
func (r *execRow) commit(db *journal.DB) error {
	if r.begun {
		// Effects are given again (the same as Begin's): the row's events
		// are built from what Finish is given, and must carry them.
		fin := r.e
		if err := db.Finish(r.e.ID, &fin); err != nil {
			return err
		}
		r.e.Finished = true
		return nil
	}
	id, err := db.Record(&r.e)
	if err != nil {
		return err
	}
	r.e.ID, r.begun = id, true
	r.e.Finished = true
	return nil
}

// journalEffects is a plan's effects as the journal keeps them: their
// wire JSON; nil for none.
func journalEffects(effs []leash.Effect) json.RawMessage {
	if len(effs) == 0 {
		return nil
	}
	b, err := appendEffectsJSON(make([]byte, 0, 64*len(effs)), effs)
	if err != nil {
		return nil
	}
	return b
}

// entryJSON is the wire shape of one journal entry (KERNEL-CONTRACT.md,
// pinned Journal shape).
type entryJSON = proto.JournalEntry

type outputJSON = proto.JournalOutput

// wireEntry is e in its wire shape.
func wireEntry(e *journal.Entry) *entryJSON {
	w := &entryJSON{
		ID: e.ID, Session: e.Session, Principal: e.Principal, TS: e.StartNS,
		Finished: e.Finished, Interrupt: e.Interrupted, Cwd: e.Cwd, Src: e.Src, AST: e.AST,
		Effects: e.Effects, Status: e.Status, OK: e.OK, Opaque: e.Opaque, Verdict: e.Verdict,
		Outputs: make([]outputJSON, 0, len(e.Outputs)),
	}
	if w.Finished {
		d := e.FinishNS - e.StartNS
		w.DurNS = &d
	}
	if len(w.AST) == 0 {
		w.AST = json.RawMessage("null")
	}
	if len(w.Effects) == 0 {
		w.Effects = json.RawMessage("[]")
	}
	for _, o := range e.Outputs {
		w.Outputs = append(w.Outputs, outputJSON{Kind: o.Kind, Hash: o.Hash, Len: o.Len})
	}
	return w
}

// sweepBlobs removes, once at start, the blobs no journal row names (an
// output stored for a row whose commit failed), sparing those younger
// than cas.SweepGrace; a failing journal query keeps every blob.
func (s *Server) sweepBlobs() {
	defer s.sweepWG.Done()
	n, err := s.journal.cas.Sweep(s.journal.db.Referenced)
	if err != nil {
		s.log.Warn("blob sweep", "err", err)
	} else if n > 0 {
		s.log.Info("blob sweep removed unreferenced blobs", "count", n)
	}
}

// blobSpares keeps a temporary file ready for the next blob, made off the
// request path, until the kernel stops (cas.Store.RunSpares): making a
// file was a quarter of an owner spawn's request CPU here.
func (s *Server) blobSpares() {
	defer s.sweepWG.Done()
	s.journal.cas.RunSpares(s.ctx)
}

// blobSyncLoop flushes the blobs stored since the last pass to the disk
// every BlobSyncInterval and once more when the kernel stops, off every
// request's path (cas.Store.Sync).
func (s *Server) blobSyncLoop() {
	defer s.sweepWG.Done()
	t := time.NewTicker(BlobSyncInterval)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			if err := s.journal.cas.Sync(); err != nil {
				s.log.Warn("blob sync", "err", err)
			}
			return
		case <-t.C:
			if err := s.journal.cas.Sync(); err != nil {
				s.log.Warn("blob sync", "err", err)
			}
		}
	}
}

// journalReaders lists, once, the principals whose policy grants
// journal_read_all.
func (s *Server) journalReaders() []string {
	s.readersOnce.Do(func() {
		if s.policy.For(s.local, true).CanReadAllJournal() {
			s.readers = append(s.readers, s.local)
		}
		for _, name := range s.policy.Principals() {
			if name != s.local && s.policy.For(name, false).CanReadAllJournal() {
				s.readers = append(s.readers, name)
			}
		}
	})
	return s.readers
}

// journalQueryParams are journal.query's params.
type journalQueryParams = proto.JournalQueryParams

// handleJournalQuery answers journal.query: the caller's rows (every row
// for a principal granted journal_read_all), newest first, at most limit.
// The cursor of the next page is the id of the last entry answered.
func handleJournalQuery(_ context.Context, c *call) (any, error) {
	j := c.conn.srv.journal
	g := c.att.grants
	if _, ok := journalScope(g, c.att.principal); !ok {
		return nil, proto.NewError(proto.CodeLeashDenied, "leash denied: journal_read = false", nil)
	}
	var p journalQueryParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	bad := func(msg string) error { return proto.NewError(proto.CodeInvalidParams, "invalid params: "+msg, nil) }
	q := journal.Query{Limit: journal.DefaultQueryLimit}
	if p.HasLimit() {
		if p.Limit < 1 {
			return nil, bad("limit must be at least 1")
		}
		q.Limit = min(p.Limit, journal.MaxQueryLimit)
	}
	if p.Since != nil {
		q.Since = *p.Since
	}
	if p.Until != nil {
		q.Until = *p.Until
	}
	q.Principal, q.Session, q.Head = p.Principal, p.Session, p.Head
	q.OK = p.OK
	if len(p.Effects) > len(effectKinds) {
		return nil, bad("too many effects")
	}
	for _, k := range p.Effects {
		kind, ok := normaliseKind(k)
		if !ok {
			return nil, bad("unknown effect kind " + quoteRef(k))
		}
		q.Effects = append(q.Effects, kind)
	}
	if p.Cursor > 0 {
		q.Cursor = journal.CursorAfter(int64(p.Cursor))
	}
	q.Principals, _ = journalScope(g, c.att.principal)
	_, q.OwnIDs = ownJournal(q.Principals)
	// The answer is written by journalAnswer, which passes the rows'
	// stored texts through.
	q.Stored = true
	if j == nil {
		return []*entryJSON{}, nil
	}
	entries, _, err := j.db.Query(q)
	if errors.Is(err, journal.ErrBadQuery) {
		return nil, bad(err.Error())
	}
	if err != nil {
		return nil, proto.NewError(proto.CodeInternalError, "journal: "+err.Error(), nil)
	}
	if q.OwnIDs {
		// A caller who may read only its own rows knows them by their
		// own ids, which count nothing of other principals' runs.
		for i := range entries {
			entries[i].ID = entries[i].PID
		}
	}
	// The answer is a copy: the page goes back for the next query.
	defer journal.ReleasePage(entries)
	return journalAnswer(c.req, entries)
}

// blobGetParams are blob.get's params.
type blobGetParams = proto.BlobGetParams

// blobAnswer is blob.get's answer.
type blobAnswer = proto.BlobResult

// unknownBlob is the one answer to a blob the caller may not read or that
// is not stored.
func unknownBlob(h string) error {
	return proto.NewError(proto.CodeUnknownRef, "unknown blob "+quoteRef(h), nil)
}

// handleBlobGet answers blob.get: a blob named by a row the caller may
// read, at most MaxBlobGet bytes of it.
func handleBlobGet(_ context.Context, c *call) (any, error) {
	var p blobGetParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Hash == nil {
		return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "hash" is required`, nil)
	}
	h := *p.Hash
	var off, n int64 = 0, MaxBlobGet
	if p.Offset != nil {
		if *p.Offset < 0 {
			return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: offset must not be negative", nil)
		}
		off = *p.Offset
	}
	if p.Length != nil {
		if *p.Length < 0 {
			return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: length must not be negative", nil)
		}
		n = min(*p.Length, MaxBlobGet)
	}
	j := c.conn.srv.journal
	if j == nil {
		return nil, unknownBlob(h)
	}
	if _, err := cas.ParseHash(h); err != nil {
		return nil, unknownBlob(h)
	}
	owner := c.att.principal
	if c.att.grants.CanReadAllJournal() {
		owner = ""
	}
	ok, err := j.db.References(h, owner)
	if errors.Is(err, journal.ErrRefBudget) {
		return nil, refBudgetError(h)
	}
	if err != nil {
		return nil, proto.NewError(proto.CodeInternalError, "journal: "+err.Error(), nil)
	}
	if !ok {
		return nil, unknownBlob(h)
	}
	data, total, err := j.cas.Get(h, off, n)
	switch {
	case errors.Is(err, cas.ErrCorrupt):
		j.forget(h)
		c.conn.srv.log.Error("blob store: corrupt blob not served", "hash", h)
		return nil, proto.NewError(proto.CodeUnknownRef, "blob "+quoteRef(h)+" is corrupt in the store and is not served", nil)
	case errors.Is(err, cas.ErrNotFound):
		j.forget(h)
		return nil, unknownBlob(h)
	case errors.Is(err, cas.ErrRange):
		return nil, proto.NewError(proto.CodeInvalidParams, "invalid params: offset past the blob's end", nil)
	case err != nil:
		return nil, proto.NewError(proto.CodeInternalError, "blob store: "+err.Error(), nil)
	}
	a := &blobAnswer{Hash: h, Len: total, Offset: off, EOF: off+int64(len(data)) >= total}
	if p.Offset == nil && p.Length == nil && a.EOF && json.Valid(data) {
		a.Value = data
	} else {
		a.Value, _ = json.Marshal(bytesWire{T: "bytes", V: data})
	}
	return a, nil
}

// bytesWire is the wire value of bytes.
type bytesWire struct {
	T string `json:"$"`
	V []byte `json:"v"`
}

// finishError finishes the row of a run that raised e, stored as
// transcript value n: its value output is the error's wire encoding, its
// status a failed command's exit status, its stderr a failed command's.
func (r *execRow) finishError(e *value.Error, n int, out *boundedBuffer) {
	var status *int
	if st, ok := e.Status.(value.Int); ok {
		v := int(st)
		status = &v
	}
	var stderr []byte
	switch x := e.Stderr.(type) {
	case value.Bytes:
		stderr = []byte(x)
	case value.Str:
		stderr = []byte(x)
	}
	wire, _ := elide(e, n, limits{maxBytes: DefaultMaxBytes, maxRows: DefaultMaxRows, maxItems: DefaultMaxItems})
	r.finish(false, status, journalValue(e, wire), out, stderr)
}

// cutUTF8 returns at most n bytes of s, cut at a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
