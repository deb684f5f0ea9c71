// Package journal is the durable record of every kernel exec: one SQLite
// database (pure Go, modernc.org/sqlite) in WAL mode at
// <state-dir>/journal.db, with a versioned schema migrated on Open.
//
// An entry is either a kernel exec ("exec") or a statement within one
// ("stmt", with Parent naming its exec). Begin commits a row that has
// started; Finish commits its end. A row Begun and never Finished, because
// the kernel died, is marked interrupted by the next Open (finished = 0,
// interrupted = 1), so a crash leaves a row that says it never finished.
//
// Every Query filter is applied in SQL, over an index, so Limit is exact.
// Entries are returned newest first (by id, which only grows) with an
// opaque cursor for the next page.
//
// Durability: commits use synchronous=NORMAL in WAL mode, so a committed row
// survives a crash or kill -9 of the process; after a power loss the last
// few commits may be lost but the database stays consistent.
//
// One kernel owns a database at a time: Open marks every unfinished row
// interrupted, which would be wrong for another live writer's rows.
package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/shoalgo/shoal/internal/syntax"
)

// Errors the journal returns, wrapped with context; test with errors.Is.
var (
	ErrNotFound     = errors.New("journal: no such entry")
	ErrFinished     = errors.New("journal: entry already finished")
	ErrBadEntry     = errors.New("journal: invalid entry")
	ErrBadQuery     = errors.New("journal: invalid query")
	ErrSchemaTooNew = errors.New("journal: database schema is newer than this build")
	ErrClosed       = errors.New("journal: closed")
)

// Entry kinds.
const (
	KindExec = "exec" // one kernel exec or plan.apply
	KindStmt = "stmt" // one statement within an exec (Parent names it)
)

// Output kinds.
const (
	OutValue  = "value"
	OutStdout = "stdout"
	OutStderr = "stderr"
	// OutUndo is what undoing the entry takes (the JSON of the
	// evaluator's undo record), kept when the run recorded any.
	OutUndo = "undo"
)

// Output is one output of an entry, stored in the content-addressed store.
type Output struct {
	Kind string `json:"kind"` // "value", "stdout" or "stderr"
	Hash string `json:"hash"` // the CAS hash, "blake3:<64 hex>"
	Len  int64  `json:"len"`  // bytes
}

// Entry is one journal row.
type Entry struct {
	ID          int64           `json:"id"`
	Kind        string          `json:"kind"`             // KindExec or KindStmt; "" means KindExec on Begin
	Parent      int64           `json:"parent,omitempty"` // 0: none
	Session     string          `json:"session"`
	Principal   string          `json:"principal"`
	StartNS     int64           `json:"start_ns"`  // Begin fills 0 with now
	FinishNS    int64           `json:"finish_ns"` // 0: never finished; Finish fills 0 with now
	Finished    bool            `json:"finished"`
	Interrupted bool            `json:"interrupted"` // begun, and the kernel died before Finish
	Cwd         string          `json:"cwd"`
	Src         string          `json:"src"`
	Head        string          `json:"head"` // first word of Src; computed on Begin
	AST         json.RawMessage `json:"ast,omitempty"`
	// Effects is the JSON array of effects as the kernel renders them
	// (objects with at least "kind"); the kinds in it, with EffectKinds,
	// are what Query's effects filter matches.
	Effects     json.RawMessage `json:"effects,omitempty"`
	EffectKinds []string        `json:"effect_kinds,omitempty"` // distinct, sorted on read
	// KindsGiven, on a write, says EffectKinds already names every kind in
	// Effects (the kernel renders Effects from a plan whose kinds it
	// holds): Begin, Record and Finish then take the row's kinds from
	// EffectKinds alone and do not decode Effects again. Never stored.
	KindsGiven bool     `json:"-"`
	Verdict    string   `json:"verdict"`
	OK         bool     `json:"ok"`
	Status     *int     `json:"status,omitempty"`
	Opaque     bool     `json:"opaque"`
	Outputs    []Output `json:"outputs"`
	// RefN is the N of the out:N the run's value or raised error was
	// stored as in its session (0: none).
	RefN int64 `json:"ref_n,omitempty"`
	// Code is a raised run's language error code ("" otherwise).
	Code string `json:"code,omitempty"`
	// Transcript says the run has a session.transcript event: the commit
	// that finishes the row assigns TSeq. Set it before Record or Finish.
	Transcript bool `json:"-"`
	// Seq is the row's number on the journal channel and TSeq its number
	// on its (principal, session)'s session.transcript channel, assigned
	// by the commit that finishes the row (Record, Finish), one above the
	// last; 0 until then (and TSeq 0 without Transcript).
	Seq  uint64 `json:"seq,omitempty"`
	TSeq uint64 `json:"tseq,omitempty"`
	// PSeq is the row's number among its principal's rows on the journal
	// channel, assigned with Seq: what a reader who may see only its own
	// principal's rows is numbered by, so that its sequence counts nothing
	// of other principals'.
	PSeq uint64 `json:"pseq,omitempty"`
	// PID is an exec row's number among its principal's exec rows,
	// assigned when the row is written (Begin, Record) like ID: the id a
	// reader who may see only its own rows is shown (Query.OwnIDs,
	// GetOwn), so that its ids count nothing of other principals'. 0 for
	// a statement row.
	PID int64 `json:"pid,omitempty"`

	encodedAST syntax.EncodedProgram // set with AST by SetAST (ast.go)
	// stored says a Query with Stored read the entry, leaving texts of
	// its row undecoded and uncopied (storedoutputs.go): the outputs in
	// their wire shape (Outputs nil; "": decoded into Outputs), the AST
	// and the effects (AST and Effects nil; "": none).
	stored                            bool
	outputsText, astText, effectsText string
}

// Query selects entries. Zero fields do not filter.
type Query struct {
	Since int64 // start_ns >= Since
	Until int64 // start_ns < Until (0: no bound)
	// Principal and Session filter on equality.
	Principal, Session string
	Head               string   // first word of the source
	OK                 *bool    // nil: either; false: finished and failed (not open, not interrupted)
	Effects            []string // all-of: every kind listed must be among the entry's
	Limit              int      // 0: DefaultQueryLimit; clamped to MaxQueryLimit
	Cursor             string   // from a previous page's next; "" is the first page
	// OwnIDs reads the rows of the one principal in Principals by their
	// PID: the cursor is a PID, and the next page's is too.
	OwnIDs bool
	// Principals is the caller's scope: nil means every principal, a
	// non-nil empty slice means none.
	Principals []string
	Kind       string // "" or KindExec: execs; KindStmt: statements; "*": both
	Parent     int64  // 0: any
	// Stored reads the page to be written into an answer as JSON (the
	// kernel's journal.query), leaving what is stored in that shape as
	// its text (storedoutputs.go): a row's outputs when their stored text
	// is already their wire encoding (Outputs nil, Entry.StoredOutputs
	// returns it; other rows' outputs are decoded into Outputs as without
	// it), and the AST and the effects (AST and Effects nil,
	// Entry.StoredAST and Entry.StoredEffects return them). EffectKinds
	// is not filled.
	Stored bool
}

// DB is an open journal. It is safe for concurrent use.
type DB struct {
	db   *sql.DB
	path string
	// wmu serialises writers: each is one append to the intent log (see
	// log.go), taking the next LSN (and, for a new row, the next id).
	// The applier copies them into SQLite through w, one dedicated
	// connection with its statements prepared once, so writes never meet
	// SQLite's busy lock; readers use the rest of the pool under WAL.
	//
	// fmu serialises the log's writes (groupcommit.go): a writer numbers
	// its row under wmu into batch, the rows not yet written, and returns
	// once a holder of fmu has written the batch; spare is a written
	// batch's buffers, for the next. fmu is taken before wmu.
	fmu    sync.Mutex
	wmu    sync.Mutex
	batch  *commitBatch
	spare  *commitBatch
	log    *intentLog
	lsn    uint64 // last LSN appended
	lastID int64  // last row id handed out
	// open holds the rows begun and not yet finished by this process,
	// with whose they are: Finish numbers a row among its principal's
	// and its session's (seqState) whatever the Entry it is given says.
	open map[int64]openRow
	ap   *applier
	w    *sql.Conn
	raw  *rawStmts // the applier's statements on w's driver connection
	// rowAtATime has the applier insert a row a statement (applyRows),
	// not by multi-row inserts (applyMulti): for tests and benchmarks.
	rowAtATime bool
	closed     bool
	// skipped counts logged writes SQLite refused on apply (see applyOps);
	// recovered is how many writes Open found logged and not applied.
	skipped   atomic.Int64
	recovered int
	// writes counts commits since the last checkpoint request; ckpt wakes
	// the checkpointer, which stops (closing ckptDone) when ckpt closes.
	writes   int
	ckpt     chan struct{}
	ckptDone chan struct{}
	wal      walStats // the WAL's bound (wal.go)
	// kmu guards bits, the effect kind to bit map (written under wmu too).
	kmu  sync.RWMutex
	bits *effectBits
	// reads caches prepared Query statements by text (at most
	// maxCachedQueries; the text depends only on which filters are set).
	rmu   sync.Mutex
	reads map[string]*sql.Stmt
	// seqs numbers finished rows for the event channels (under wmu);
	// onFinish, when set, is told of each finished row once its batch is
	// written, under fmu, in seq order.
	seqs     seqState
	onFinish func(*Entry)
}

// Open opens (creating if needed) the journal at path, migrates its schema
// to SchemaVersion, and marks rows left unfinished by a crash interrupted.
func Open(path string) (*DB, error) {
	return openAt(path, SchemaVersion, true)
}

func openAt(path string, version int, mark bool) (*DB, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("journal: unusable path %q", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal: creating %s: %w", filepath.Dir(path), err)
	}
	dsn := fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=wal_autocheckpoint(0)&_pragma=temp_store(MEMORY)&_txlock=immediate",
		path, BusyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("journal: opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxOpenConns)
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal: opening %s: %w", path, err)
	}
	if mode != "wal" {
		db.Close()
		return nil, fmt.Errorf("journal: %s: journal_mode is %q, want wal", path, mode)
	}
	if err := migrate(db, version); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal: %s: %w", path, err)
	}
	d := &DB{db: db, path: path, reads: map[string]*sql.Stmt{}, open: map[int64]openRow{}, ap: newApplier()}
	if version < 2 {
		if mark {
			if _, err := db.Exec(`UPDATE entries SET interrupted = 1 WHERE finished = 0 AND interrupted = 0`); err != nil {
				db.Close()
				return nil, fmt.Errorf("journal: marking unfinished rows: %w", err)
			}
		}
		return d, nil // a test's old-schema database: raw access only
	}
	fail := func(err error) (*DB, error) {
		if d.log != nil {
			d.log.close()
		}
		if d.w != nil {
			if d.raw != nil {
				_ = d.w.Raw(func(any) error { return d.raw.close() })
			}
			d.w.Close()
		}
		db.Close()
		return nil, fmt.Errorf("journal: %s: %w", path, err)
	}
	if d.log, err = openLog(path + "-log"); err != nil {
		return fail(err)
	}
	if err := d.prepare(); err != nil {
		return fail(err)
	}
	// Writes that returned before a crash and were not yet applied are in
	// the log: apply them first, then mark what they left unfinished.
	if err := d.recoverLog(); err != nil {
		return fail(err)
	}
	if mark {
		if _, err := db.Exec(`UPDATE entries SET interrupted = 1 WHERE finished = 0 AND interrupted = 0`); err != nil {
			return fail(fmt.Errorf("marking unfinished rows: %w", err))
		}
	}
	if err := d.loadState(); err != nil {
		return fail(err)
	}
	d.batch = newBatch(d.lsn, d.lastID, d.seqs.last)
	d.ckpt, d.ckptDone = make(chan struct{}, 1), make(chan struct{})
	go d.checkpointer()
	go d.runApplier()
	return d, nil
}

// loadState reads what writers number from: the last row id, the event
// channels' last seqs, the effect bits.
func (d *DB) loadState() error {
	var err error
	if d.bits, err = loadBits(d.db); err != nil {
		return err
	}
	var maxID, seqID sql.NullInt64
	if err := d.db.QueryRow(`SELECT max(id) FROM entries`).Scan(&maxID); err != nil {
		return fmt.Errorf("reading the last id: %w", err)
	}
	if err := d.db.QueryRow(`SELECT seq FROM sqlite_sequence WHERE name = 'entries'`).Scan(&seqID); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("reading the last id: %w", err)
	}
	d.lastID = max(maxID.Int64, seqID.Int64)
	return d.seqs.load(d.db)
}

// checkpointer copies the WAL back into the database every
// CheckpointEvery commits, on a connection of its own, so the fsyncs of a
// checkpoint stall no commit (SQLite's own autocheckpoint, which would run
// inside a commit, is off).
func (d *DB) checkpointer() {
	defer close(d.ckptDone)
	for range d.ckpt {
		d.checkpoint() // wal.go: taking turns with the applier's truncation
	}
}

// wrote counts n rows written and wakes the checkpointer when it is due.
// Call with the applier's amu held.
func (d *DB) wrote(n int) {
	if d.writes += n; d.writes >= CheckpointEvery {
		d.writes = 0
		select {
		case d.ckpt <- struct{}{}:
		default: // one is already pending
		}
	}
}

func (d *DB) prepare() error {
	var err error
	if d.w, err = d.db.Conn(context.Background()); err != nil {
		return err
	}
	if _, err = d.w.ExecContext(context.Background(), fmt.Sprintf(`PRAGMA cache_spill = %d`, applySpillPages)); err != nil {
		return err
	}
	return d.w.Raw(func(dc any) error {
		d.raw, err = prepareRaw(dc)
		return err
	})
}

// Path is the database file's path.
func (d *DB) Path() string { return d.path }

// Close closes the database.
func (d *DB) Close() error {
	d.fmu.Lock()
	defer d.fmu.Unlock()
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	var applyErr error
	if d.log != nil {
		// Rows numbered and not yet written: write them (their writers
		// find their batch done), so that they are applied below.
		applyErr = d.flushLocked()
		close(d.ap.stop)
		<-d.ap.done
		applyErr = errors.Join(applyErr, d.applyPending()) // what is left stays in the log if this fails
		d.log.close()
	}
	if d.ckpt != nil {
		close(d.ckpt)
		<-d.ckptDone
	}
	d.rmu.Lock()
	for _, st := range d.reads {
		st.Close()
	}
	d.reads = nil
	d.rmu.Unlock()
	if d.w != nil {
		if d.raw != nil {
			_ = d.w.Raw(func(any) error { return d.raw.close() })
		}
		d.w.Close()
	}
	return errors.Join(applyErr, d.db.Close())
}

// Head returns the first word of src: leading space skipped, then up to the
// first space or shell punctuation. "ls -la | head" has head "ls"; a source
// that starts with punctuation has head "".
func Head(src string) string {
	s := strings.TrimLeftFunc(src, unicode.IsSpace)
	end := strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("|;&(){}[]<>\"'=,`$#", r)
	})
	if end < 0 {
		end = len(s)
	}
	h := s[:end]
	if len(h) > MaxHeadBytes {
		h = h[:MaxHeadBytes]
		for !utf8.ValidString(h) {
			h = h[:len(h)-1]
		}
	}
	return h
}

// kindsOf returns the distinct, sorted effect kinds of an effects JSON array
// together with extra.
func kindsOf(effects json.RawMessage, extra []string) ([]string, error) {
	var kinds []string
	if len(effects) > 0 && string(effects) != "null" {
		var list []struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(effects, &list); err != nil {
			return nil, fmt.Errorf("%w: effects is not an array of {kind}: %v", ErrBadEntry, err)
		}
		for _, e := range list {
			kinds = append(kinds, e.Kind)
		}
	}
	kinds = append(kinds, extra...)
	slices.Sort(kinds)
	kinds = slices.Compact(kinds)
	if len(kinds) > 0 && kinds[0] == "" {
		kinds = kinds[1:]
	}
	return kinds, nil
}

func checkField(name, v string) error {
	if len(v) > MaxFieldBytes {
		return fmt.Errorf("%w: %s is %d bytes (max %d)", ErrBadEntry, name, len(v), MaxFieldBytes)
	}
	return nil
}

func checkOutputs(outs []Output) error {
	if len(outs) > MaxOutputs {
		return fmt.Errorf("%w: %d outputs (max %d)", ErrBadEntry, len(outs), MaxOutputs)
	}
	for _, o := range outs {
		switch o.Kind {
		case OutValue, OutStdout, OutStderr, OutUndo:
		default:
			return fmt.Errorf("%w: output kind %q", ErrBadEntry, o.Kind)
		}
		if o.Hash == "" || o.Len < 0 {
			return fmt.Errorf("%w: output %s without hash or with negative length", ErrBadEntry, o.Kind)
		}
		if err := checkField("output hash", o.Hash); err != nil {
			return err
		}
	}
	return nil
}

// checkEffects checks an entry's effects and returns its distinct, sorted
// effect kinds: those named in effects with extra, or extra alone when
// given says extra already holds every kind effects names (Entry.KindsGiven).
func checkEffects(effects json.RawMessage, extra []string, given bool) ([]string, error) {
	if len(effects) > MaxEffectsBytes {
		return nil, fmt.Errorf("%w: effects is %d bytes (max %d)", ErrBadEntry, len(effects), MaxEffectsBytes)
	}
	if given {
		effects = nil
	}
	kinds, err := kindsOf(effects, extra)
	if err != nil {
		return nil, err
	}
	if len(kinds) > MaxEffectKinds {
		return nil, fmt.Errorf("%w: %d effect kinds (max %d)", ErrBadEntry, len(kinds), MaxEffectKinds)
	}
	for _, k := range kinds {
		if err := checkField("effect kind", k); err != nil {
			return nil, err
		}
	}
	return kinds, nil
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

func nullSeq(n uint64) any {
	if n == 0 {
		return nil
	}
	return int64(n)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Begin commits the start of an entry and returns its id. Kind "" means
// KindExec; StartNS 0 means now; Head is computed from Src. Outputs, if
// any, are recorded too. e is not modified. It is one SQL statement.
// RefN, Code and Transcript are recorded by Finish, not Begin.
func (d *DB) Begin(e *Entry) (int64, error) {
	return d.insert(e, false)
}

// Record commits a whole, finished entry in one statement (Begin and
// Finish at once, FinishNS 0 meaning now) and returns its id; it sets
// e.ID, e.Seq, e.PSeq and e.TSeq. It is for a
// run with nothing to lose to a crash, such as a refused run or one with
// no effects on the world: such a run leaves no unfinished row if the
// kernel dies during it, where Begin's would.
func (d *DB) Record(e *Entry) (int64, error) {
	return d.insert(e, true)
}

func (d *DB) insert(e *Entry, finished bool) (int64, error) {
	kind := e.Kind
	if kind == "" {
		kind = KindExec
	}
	if kind != KindExec && kind != KindStmt {
		return 0, fmt.Errorf("%w: kind %q", ErrBadEntry, e.Kind)
	}
	if e.Parent < 0 {
		return 0, fmt.Errorf("%w: parent %d", ErrBadEntry, e.Parent)
	}
	for _, f := range [][2]string{{"session", e.Session}, {"principal", e.Principal}, {"cwd", e.Cwd}, {"verdict", e.Verdict}, {"code", e.Code}} {
		if err := checkField(f[0], f[1]); err != nil {
			return 0, err
		}
	}
	if len(e.Src) > MaxSrcBytes {
		return 0, fmt.Errorf("%w: source is %d bytes (max %d)", ErrBadEntry, len(e.Src), MaxSrcBytes)
	}
	if len(e.AST) > MaxASTBytes {
		return 0, fmt.Errorf("%w: AST is %d bytes (max %d)", ErrBadEntry, len(e.AST), MaxASTBytes)
	}
	if len(e.AST) > 0 && !e.astEncoded() && !json.Valid(e.AST) {
		return 0, fmt.Errorf("%w: AST is not JSON", ErrBadEntry)
	}
	kinds, err := checkEffects(e.Effects, e.EffectKinds, e.KindsGiven)
	if err != nil {
		return 0, err
	}
	if err := checkOutputs(e.Outputs); err != nil {
		return 0, err
	}
	start := e.StartNS
	if start == 0 {
		start = time.Now().UnixNano()
	}
	outs, err := outputsJSON(e.Outputs)
	if err != nil {
		return 0, err
	}
	op := &logOp{Kind: kind, Parent: e.Parent, Session: e.Session, Principal: e.Principal, StartNS: start,
		Cwd: e.Cwd, Src: e.Src, Head: Head(e.Src), AST: e.AST, Effects: e.Effects, Verdict: e.Verdict, OK: e.OK,
		Status: e.Status, Opaque: e.Opaque, Outputs: outs, Finished: finished}
	if finished {
		op.RefN, op.Code = e.RefN, e.Code
		if op.FinishNS = e.FinishNS; op.FinishNS == 0 {
			op.FinishNS = time.Now().UnixNano()
		}
	}
	id0, seq0, tseq0, pseq0, pid0 := e.ID, e.Seq, e.TSeq, e.PSeq, e.PID
	b, err := d.insertLocked(e, op, kind, kinds, finished)
	if err != nil {
		return 0, err
	}
	if err := d.await(b, op); err != nil {
		e.ID, e.Seq, e.TSeq, e.PSeq, e.PID = id0, seq0, tseq0, pseq0, pid0
		return 0, fmt.Errorf("journal: begin: %w", err)
	}
	return op.ID, nil
}

// insertLocked numbers the row op inserts and stages it in the open batch
// (see insert), setting e's numbers. It takes wmu.
func (d *DB) insertLocked(e *Entry, op *logOp, kind string, kinds []string, finished bool) (_ *commitBatch, err error) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	if e.Parent != 0 {
		if _, open := d.open[e.Parent]; !open {
			if _, err := d.rowState(e.Parent); errors.Is(err, errNoRow) || e.Parent > d.lastID {
				return nil, fmt.Errorf("%w: parent %d does not exist", ErrBadEntry, e.Parent)
			} else if err != nil {
				return nil, fmt.Errorf("journal: begin: %w", err)
			}
		}
	}
	if op.Mask, err = d.maskFor(kinds); err != nil {
		return nil, err
	}
	if finished {
		if op.Seq, op.TSeq, op.PSeq, err = d.seqs.next(d, kind, e); err != nil {
			return nil, err
		}
	}
	if kind == KindExec {
		if op.PID, err = d.seqs.nextPID(d, e.Principal); err != nil {
			return nil, err
		}
	}
	op.ID = d.lastID + 1
	b, err := d.stageLocked(op)
	if err != nil {
		return nil, fmt.Errorf("journal: begin: %w", err)
	}
	d.lastID = op.ID
	d.seqs.commitPID(e.Principal, op.PID)
	e.PID = op.PID
	if finished {
		d.seqs.commit(kind, e, op.Seq, op.TSeq, op.PSeq)
		e.ID, e.Seq, e.TSeq, e.PSeq = op.ID, op.Seq, op.TSeq, op.PSeq
		d.tellLocked(b, e, kind, op.StartNS, op.FinishNS)
	} else {
		d.open[op.ID] = openRow{streamKey{e.Principal, e.Session}, op.PID}
		b.undo = append(b.undo, undoRow{id: op.ID, begun: true})
	}
	return b, nil
}

// OnFinish sets fn to be told of every row as the commit that finishes it
// (Record, Finish) succeeds, with its id, Seq and TSeq set: in Seq order,
// before the writer returns, by whichever writer wrote the row's batch to
// the log (groupcommit.go), under the lock that orders those writes, so fn
// must be quick, must not call back into d and must not keep the Entry.
// For a row finished by Finish, fn sees the Entry given to Finish (with ID
// set), not a read of the row. Set it before the first write.
func (d *DB) OnFinish(fn func(*Entry)) {
	d.fmu.Lock()
	d.wmu.Lock()
	d.onFinish = fn
	d.wmu.Unlock()
	d.fmu.Unlock()
}

// maskFor is the effect mask of kinds; a kind never seen before gets its
// bit in a commit of its own (a bit allocated for a row that then fails to
// insert is merely unused). Call with wmu held.
func (d *DB) maskFor(kinds []string) (int64, error) {
	d.kmu.RLock()
	m, ok := d.bits.lookup(kinds)
	d.kmu.RUnlock()
	if ok {
		return m, nil
	}
	d.kmu.Lock()
	defer d.kmu.Unlock()
	d.ap.amu.Lock()
	defer d.ap.amu.Unlock()
	return d.bits.maskFor(writer{d.w}, kinds)
}

// writer adapts the dedicated connection to querier.
type writer struct{ c *sql.Conn }

func (w writer) Query(q string, args ...any) (*sql.Rows, error) {
	return w.c.QueryContext(context.Background(), q, args...)
}

func (w writer) QueryRow(q string, args ...any) *sql.Row {
	return w.c.QueryRowContext(context.Background(), q, args...)
}

func (w writer) Exec(q string, args ...any) (sql.Result, error) {
	return w.c.ExecContext(context.Background(), q, args...)
}

// outputsJSON is the outputs_json column of outs: the one shape
// fastOutputs reads, written by hand when every kind and hash is plain
// ASCII that encoding/json writes as it is (always, for the kernel's
// kinds and CAS hashes), by encoding/json otherwise.
func outputsJSON(outs []Output) ([]byte, error) {
	if b, ok := plainOutputsJSON(outs); ok {
		return b, nil
	}
	if outs == nil {
		outs = []Output{}
	}
	b, err := json.Marshal(outs)
	if err != nil {
		return nil, fmt.Errorf("%w: outputs: %v", ErrBadEntry, err)
	}
	return b, nil
}

// plainOutputsJSON writes outs as encoding/json would, when every kind and
// hash is plainASCII (AppendOutputsJSON then writes them as they are); ok
// is false otherwise.
func plainOutputsJSON(outs []Output) (_ []byte, ok bool) {
	n := 2
	for _, o := range outs {
		if !plainASCII(o.Kind) || !plainASCII(o.Hash) {
			return nil, false
		}
		n += 48 + len(o.Kind) + len(o.Hash)
	}
	return AppendOutputsJSON(make([]byte, 0, n), outs), true
}

// plainASCII reports whether encoding/json writes s between its quotes
// unchanged: printable ASCII without a quote, a backslash or the HTML
// characters it escapes (<, >, &).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// Finish commits the end of entry id: FinishNS (0 means now), OK, Status,
// Verdict, Opaque, RefN and Code, and assigns Seq, PSeq (and TSeq with
// Transcript), setting them, e.ID and the row's Principal and Session on
// e. e.Kind must be the row's kind
// ("" for exec), for the seqs only exec rows get. Outputs and Effects (with EffectKinds), when non-nil,
// replace the entry's (a run learns its outputs, and may learn its effects,
// as it goes). Finishing an entry twice, or one marked interrupted, is
// ErrFinished; an unknown id is ErrNotFound. It is one SQL statement.
func (d *DB) Finish(id int64, e *Entry) error {
	if err := checkField("verdict", e.Verdict); err != nil {
		return err
	}
	if err := checkField("code", e.Code); err != nil {
		return err
	}
	if err := checkOutputs(e.Outputs); err != nil {
		return err
	}
	var kinds []string
	replace := e.Effects != nil || e.EffectKinds != nil
	if replace {
		var err error
		if kinds, err = checkEffects(e.Effects, e.EffectKinds, e.KindsGiven); err != nil {
			return err
		}
	}
	var outs any
	if e.Outputs != nil {
		b, err := outputsJSON(e.Outputs)
		if err != nil {
			return err
		}
		outs = string(b)
	}
	fin := e.FinishNS
	if fin == 0 {
		fin = time.Now().UnixNano()
	}
	op := &logOp{Finish: true, ID: id, FinishNS: fin, OK: e.OK, Status: e.Status, Verdict: e.Verdict, Opaque: e.Opaque,
		SetEffects: replace, RefN: e.RefN, Code: e.Code}
	if outs != nil {
		op.Outputs = json.RawMessage(outs.(string))
	}
	if replace {
		op.Effects = e.Effects
	}
	id0, seq0, tseq0, pseq0 := e.ID, e.Seq, e.TSeq, e.PSeq
	b, err := d.finishLocked(id, e, op, replace, kinds, fin)
	if err != nil {
		return err
	}
	if err := d.await(b, op); err != nil {
		e.ID, e.Seq, e.TSeq, e.PSeq = id0, seq0, tseq0, pseq0
		return fmt.Errorf("journal: finish %d: %w", id, err)
	}
	return nil
}

// finishLocked numbers the finish op logs and stages it in the open batch
// (see Finish), setting e's numbers. It takes wmu.
func (d *DB) finishLocked(id int64, e *Entry, op *logOp, replace bool, kinds []string, fin int64) (*commitBatch, error) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	row, open := d.open[id]
	if !open {
		// Not begun by this process, or finished: say which, from the
		// database (a row begun by an earlier process is interrupted).
		switch open, err := d.rowState(id); {
		case errors.Is(err, errNoRow):
			return nil, fmt.Errorf("%w: %d", ErrNotFound, id)
		case err != nil:
			return nil, fmt.Errorf("journal: finish %d: %w", id, err)
		case !open:
			return nil, fmt.Errorf("%w: %d", ErrFinished, id)
		}
		return nil, fmt.Errorf("%w: %d was begun by another process", ErrFinished, id)
	}
	if replace {
		m, err := d.maskFor(kinds)
		if err != nil {
			return nil, err
		}
		op.Mask = m
	}
	kind := e.Kind
	if kind == "" {
		kind = KindExec
	}
	e.Principal, e.Session, e.PID = row.principal, row.session, row.pid
	var err error
	if op.Seq, op.TSeq, op.PSeq, err = d.seqs.next(d, kind, e); err != nil {
		return nil, err
	}
	b, err := d.stageLocked(op)
	if err != nil {
		return nil, fmt.Errorf("journal: finish %d: %w", id, err)
	}
	delete(d.open, id)
	b.undo = append(b.undo, undoRow{id: id, row: row})
	d.seqs.commit(kind, e, op.Seq, op.TSeq, op.PSeq)
	e.ID, e.Seq, e.TSeq, e.PSeq = id, op.Seq, op.TSeq, op.PSeq
	d.tellLocked(b, e, kind, e.StartNS, fin)
	return b, nil
}

// openRow is whose a row begun and not yet finished is, and its pid.
type openRow struct {
	streamKey
	pid int64
}

// GetOwn returns principal's exec row numbered pid among its own, or
// ErrNotFound.
func (d *DB) GetOwn(principal string, pid int64) (Entry, error) {
	if err := d.sync(); err != nil {
		return Entry{}, fmt.Errorf("journal: get %s/%d: %w", principal, pid, err)
	}
	rows, err := d.db.Query(sqlGetOwn, principal, pid)
	if err != nil {
		return Entry{}, fmt.Errorf("journal: get %s/%d: %w", principal, pid, err)
	}
	es, err := d.scan(rows)
	if err != nil {
		return Entry{}, fmt.Errorf("journal: get %s/%d: %w", principal, pid, err)
	}
	if len(es) == 0 {
		return Entry{}, fmt.Errorf("%w: %s/%d", ErrNotFound, principal, pid)
	}
	return es[0], nil
}

// entryCols selects a row as five columns: its id, whether it was marked
// interrupted (Open marks the column alone), the rest packed into one
// text the applier wrote (see packed.go), and its principal numbers
// (pseq, pid; 0 for none). Every column fetched through the driver costs
// a few calls into SQLite, each taking the connection's mutex; two
// columns instead of twenty-four made a page of 100 entries several times
// cheaper to read.
const entryCols = `id, interrupted, packed, coalesce(pseq, 0), coalesce(pid, 0)`

// Get returns entry id, or ErrNotFound.
func (d *DB) Get(id int64) (Entry, error) {
	if err := d.sync(); err != nil {
		return Entry{}, fmt.Errorf("journal: get %d: %w", id, err)
	}
	rows, err := d.db.Query(`SELECT `+entryCols+` FROM entries WHERE id = ?`, id)
	if err != nil {
		return Entry{}, fmt.Errorf("journal: get %d: %w", id, err)
	}
	es, err := d.scan(rows)
	if err != nil {
		return Entry{}, fmt.Errorf("journal: get %d: %w", id, err)
	}
	if len(es) == 0 {
		return Entry{}, fmt.Errorf("%w: %d", ErrNotFound, id)
	}
	return es[0], nil
}

// Query returns up to Limit entries matching q, newest first, and a cursor
// for the next page ("" when this page is the last). A page also ends,
// with a cursor, once its entries' source, AST and effects reach
// MaxPageBytes, so no page holds more than about that plus one entry.
func (d *DB) Query(q Query) ([]Entry, string, error) {
	if err := d.sync(); err != nil {
		return nil, "", fmt.Errorf("journal: query: %w", err)
	}
	if q.Principals != nil && len(q.Principals) == 0 {
		if q.Limit < 0 {
			return nil, "", fmt.Errorf("%w: negative limit %d", ErrBadQuery, q.Limit)
		}
		return []Entry{}, "", nil
	}
	plan, err := d.planWalk(q)
	if err != nil {
		return nil, "", err
	}
	d.kmu.RLock()
	text, args, limit, err := buildQuery(q, d.bits, plan)
	d.kmu.RUnlock()
	if err != nil {
		if errors.Is(err, errNoMatch) {
			return []Entry{}, "", nil
		}
		return nil, "", err
	}
	st, err := d.readStmt(text)
	if err != nil {
		return nil, "", fmt.Errorf("journal: query: %w", err)
	}
	var rows *sql.Rows
	if st != nil {
		rows, err = st.Query(args...)
	} else {
		rows, err = d.db.Query(text, args...)
	}
	if err != nil {
		return nil, "", fmt.Errorf("journal: query: %w", err)
	}
	es, full, err := d.scanPage(rows, MaxPageBytes, limit+1, q.Stored)
	if err != nil {
		return nil, "", fmt.Errorf("journal: query: %w", err)
	}
	next := ""
	at := func(e *Entry) int64 {
		if q.OwnIDs {
			return e.PID
		}
		return e.ID
	}
	if len(es) > limit {
		es = es[:limit]
		next = encodeCursor(at(&es[limit-1]))
	} else if full {
		next = encodeCursor(at(&es[len(es)-1]))
	}
	return es, next, nil
}

// errNoMatch tells Query that no entry can match, without asking SQL.
var errNoMatch = errors.New("journal: no entry can match")

// readStmt returns the prepared statement for a Query text, preparing and
// caching it on first use while the cache has room; nil (and no error)
// when the cache is full, and the caller runs the text unprepared.
func (d *DB) readStmt(text string) (*sql.Stmt, error) {
	d.rmu.Lock()
	defer d.rmu.Unlock()
	if d.reads == nil {
		return nil, ErrClosed
	}
	if st, ok := d.reads[text]; ok {
		return st, nil
	}
	if len(d.reads) >= maxCachedQueries {
		return nil, nil
	}
	st, err := d.db.Prepare(text)
	if err != nil {
		return nil, err
	}
	d.reads[text] = st
	return st, nil
}

// buildQuery is q as one SQL statement (every filter in SQL, so the LIMIT
// is exact), asking for one row beyond the page to learn whether another
// page follows. It returns the page size.
func buildQuery(q Query, eb *effectBits, plan walkPlan) (string, []any, int, error) {
	limit := q.Limit
	if limit < 0 {
		return "", nil, 0, fmt.Errorf("%w: negative limit %d", ErrBadQuery, limit)
	}
	if limit == 0 {
		limit = DefaultQueryLimit
	}
	limit = min(limit, MaxQueryLimit)
	if len(q.Principals) > MaxScopePrincipals {
		return "", nil, 0, fmt.Errorf("%w: %d principals in scope (max %d)", ErrBadQuery, len(q.Principals), MaxScopePrincipals)
	}
	if q.OwnIDs && (len(q.Principals) != 1 || q.Kind != "" && q.Kind != KindExec) {
		return "", nil, 0, fmt.Errorf("%w: own ids need one principal and exec rows", ErrBadQuery)
	}
	effects := slices.Clone(q.Effects)
	slices.Sort(effects)
	effects = slices.Compact(effects)
	if len(effects) > MaxEffectFilter {
		return "", nil, 0, fmt.Errorf("%w: %d effect kinds (max %d)", ErrBadQuery, len(effects), MaxEffectFilter)
	}
	var where []string
	var args []any
	switch q.Kind {
	case "", KindExec:
		where, args = append(where, "kind = ?"), append(args, KindExec)
	case KindStmt:
		where, args = append(where, "kind = ?"), append(args, KindStmt)
	case "*":
	default:
		return "", nil, 0, fmt.Errorf("%w: kind %q", ErrBadQuery, q.Kind)
	}
	if q.Cursor != "" {
		before, err := decodeCursor(q.Cursor)
		if err != nil {
			return "", nil, 0, err
		}
		col := "id"
		if q.OwnIDs {
			col = "pid"
		}
		where, args = append(where, col+" < ?"), append(args, before)
	}
	// start_ns is tested off entries_start only when planWalk chose that
	// index (a narrow window); otherwise "+" keeps SQLite from planning
	// on it: a wide window walks newest first until its page is full, as
	// it always did, rather than sorting every row of the window
	// (window.go).
	startCol := "+start_ns"
	if plan.byStart {
		startCol = "start_ns"
	}
	if q.Since != 0 {
		where, args = append(where, startCol+" >= ?"), append(args, q.Since)
	}
	if plan.byIDs {
		// A deep window's walk covers its rows' ids alone (window.go).
		// BETWEEN, not >= and <=: with those SQLite walked entries_kind
		// in the range rather than the principal's, session's or head's
		// index in it (TestLookupPlans).
		where, args = append(where, "id BETWEEN ? AND ?"), append(args, plan.idLo, plan.idHi)
	}
	if q.Until != 0 {
		where, args = append(where, startCol+" < ?"), append(args, q.Until)
	}
	if q.Principal != "" {
		where, args = append(where, "principal = ?"), append(args, q.Principal)
	}
	if len(q.Principals) > 0 {
		where = append(where, "principal IN (?"+strings.Repeat(", ?", len(q.Principals)-1)+")")
		for _, p := range q.Principals {
			args = append(args, p)
		}
	}
	if q.Session != "" {
		where, args = append(where, "session = ?"), append(args, q.Session)
	}
	if q.Head != "" {
		where, args = append(where, "head = ?"), append(args, q.Head)
	}
	if q.OK != nil {
		// A literal, not a parameter: entries_failed is a partial index
		// (ok = 0), which SQLite uses only for a query that says so.
		where = append(where, "ok = "+strconv.Itoa(b2i(*q.OK)))
		if !*q.OK {
			// Failed means finished and not ok: a row still running (the
			// query's own, say) or cut off by a crash has ok = 0 too.
			where = append(where, "finished = 1")
		}
	}
	if q.Parent != 0 {
		where, args = append(where, "parent = ?"), append(args, q.Parent)
	}
	if len(effects) > 0 {
		m, ok := eb.lookup(effects)
		if !ok {
			return "", nil, 0, errNoMatch // a kind no entry was ever recorded with
		}
		where, args = append(where, "effect_mask & ? = ?"), append(args, m, m)
	}
	text := `SELECT ` + entryCols + ` FROM entries`
	if plan.byStart {
		text += ` INDEXED BY entries_start`
	}
	if len(where) > 0 {
		text += ` WHERE ` + strings.Join(where, " AND ")
	}
	if q.OwnIDs && q.Cursor != "" {
		// A range of own ids is walked down entries_pid, whose order is
		// the id order (one principal's exec rows are numbered in id
		// order). Ordered by id, a page after a cursor (pid < ?) sorted
		// every older row of the principal's. (A first page keeps id:
		// ordered by pid, SQLite sorted the filters' index instead.)
		text += ` ORDER BY pid DESC LIMIT ?`
	} else {
		text += ` ORDER BY id DESC LIMIT ?`
	}
	args = append(args, limit+1)
	return text, args, limit, nil
}

// scan reads entry rows and closes rows.
func (d *DB) scan(rows *sql.Rows) ([]Entry, error) {
	es, _, err := d.scanPage(rows, 0, 0, false)
	return es, err
}

// scanPage reads entry rows and closes rows. With budget > 0 it stops after
// the row that brings the page's source, AST and effects to budget bytes,
// and reports full when rows were left unread.
// rows is how many rows to expect (0: unknown), so that the page is
// allocated once. With stored, the page is Query.Stored's.
func (d *DB) scanPage(rows *sql.Rows, budget, expect int, stored bool) (_ []Entry, full bool, _ error) {
	defer rows.Close()
	size := 0
	es := newPage(expect)
	// A page allocates its rows' statuses once, and the kinds of each
	// distinct effect mask once (rows share the slice, clipped).
	statuses := make([]int, expect)
	// Rows record a few outputs each (value, stdout, stderr): one array
	// holds them all, allocated by the first row that has any.
	var arena []Output
	kinds := map[int64][]string{}
	d.kmu.RLock()
	defer d.kmu.RUnlock()
	// The row's columns are scanned into these, once per page: a
	// destination passed to Scan escapes, so a row scanned into its own
	// Entry put every row's Entry (some 700 bytes) on the heap before it
	// was copied into the page. The integers arrive as the driver's int64
	// in an any, taken as they are: Scan converts into a uint64 or an int
	// by formatting and parsing the number.
	var packed string
	var id, intr, pseq, pid any
	raw := rawArena{keep: stored}
	for rows.Next() {
		if budget > 0 && size >= budget {
			return es, true, nil
		}
		if err := rows.Scan(&id, &intr, &packed, &pseq, &pid); err != nil {
			return nil, false, err
		}
		es = append(es, Entry{})
		e := &es[len(es)-1]
		var n [4]int64 // id, interrupted, pseq, pid
		for i, v := range [4]any{id, intr, pseq, pid} {
			var err error
			if n[i], err = scannedInt(v); err != nil {
				return nil, false, fmt.Errorf("entry %d: %w", n[0], err)
			}
		}
		if n[2] < 0 {
			return nil, false, fmt.Errorf("entry %d: negative pseq %d", n[0], n[2])
		}
		e.ID, e.PSeq, e.PID = n[0], uint64(n[2]), n[3]
		var slot *int
		if i := len(es) - 1; i < len(statuses) {
			slot = &statuses[i]
		} else {
			slot = new(int)
		}
		raw.left = max(expect-len(es)+1, 1)
		mask, outs, err := unpackRowTo(packed, e, slot, &raw)
		if err != nil {
			return nil, false, fmt.Errorf("entry %d: %w", e.ID, err)
		}
		e.Interrupted = e.Interrupted || n[1] != 0
		size += len(e.Src) + len(e.AST) + len(e.Effects) + len(e.astText) + len(e.effectsText) + len(outs)
		if stored {
			if storedOutputs(outs) {
				e.outputsText = outs // a substring of packed, as Src and the rest are
				continue
			}
		} else {
			k, ok := kinds[mask]
			if !ok {
				k = slices.Clip(d.bits.kinds(mask))
				kinds[mask] = k
			}
			e.EffectKinds = k
		}
		if arena == nil && outs != "[]" {
			arena = make([]Output, 0, 3*max(expect, 1))
		}
		if e.Outputs, err = decodeOutputsTo(&arena, outs); err != nil {
			return nil, false, fmt.Errorf("entry %d: outputs: %w", e.ID, err)
		}
	}
	return es, false, rows.Err()
}

// References reports whether any row records an output with hash h; with
// principal non-empty, only that principal's rows count. The kernel serves
// blob.get only for blobs a row the caller may read references.
func (d *DB) References(h, principal string) (bool, error) {
	if err := d.sync(); err != nil {
		return false, fmt.Errorf("journal: references %s: %w", h, err)
	}
	var one int
	var err error
	if principal == "" {
		err = d.db.QueryRow(`SELECT 1 FROM outputs WHERE hash = ? LIMIT 1`, h).Scan(&one)
	} else {
		var ok bool
		ok, err = d.referencesBy(h, principal)
		if errors.Is(err, ErrRefBudget) {
			return false, err
		}
		if err == nil {
			return ok, nil
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("journal: references %s: %w", h, err)
	}
	return true, nil
}

// Referenced is References(h, "") as a predicate for cas.Store.Sweep: on a
// database error it answers true, so a failing query never lets a sweep
// drop a blob.
func (d *DB) Referenced(h string) bool {
	ok, err := d.References(h, "")
	return ok || err != nil
}
