package eval

// The journal builtins: `journal` and `history` (two names for one view of
// the session host's durable execution journal) and `undo` (undo.go). The
// evaluator holds no journal of its own: the host surface (the kernel)
// provides one through Options.Journal, and without it every journal
// builtin fails with `unavailable`.

import (
	"context"
	"strconv"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

// EffectJournalRead is the effect the journal builtins declare: reading
// the journal (policy's `journal_read`).
const EffectJournalRead host.Effect = "journal_read"

// codeUnavailable: the session has no journal (Options.Journal is nil).
const codeUnavailable = value.CodeUnavailable

// JournalFilter selects journal entries. Zero fields do not filter.
type JournalFilter struct {
	Head      string // the first command word of the entry's source
	Principal string
	Session   string
	OK        *bool
	Since     int64    // start time, Unix ns, inclusive
	Until     int64    // start time, Unix ns, exclusive
	Effects   []string // effect kinds the entry must all have
	Limit     int      // at most this many, newest first; 0: JournalDefaultLimit
}

// JournalEntry is one journal row as the journal builtins see it.
type JournalEntry struct {
	ID        int64
	StartNS   int64 // when the entry started, Unix ns
	FinishNS  int64 // 0: it never finished
	Session   string
	Principal string
	Src       string
	OK        bool
	Status    *int     // exit status of the entry's last command; nil when none
	Effects   []string // effect kinds, in the order recorded
	// Undo are the inverse steps the entry's builtins recorded (the
	// UndoLog's Record); UndoLost, when not empty, says why the entry has
	// no complete inverse (it did something no step reverses), which
	// makes it irreversible.
	Undo     []UndoStep
	UndoLost string
	// Outputs are the entry's stored outputs (value, stdout, stderr),
	// each with the content ref that reads it back.
	Outputs []JournalOutput
}

// JournalOutput is one stored output of a journal entry: its kind
// ("value", "stdout" or "stderr"), its length in bytes as produced, and
// its content ref ("val:blake3:<hex>", see content_ref.go).
type JournalOutput struct {
	Kind string
	Len  int64
	Ref  string
}

// JournalSource is the journal a host surface provides to a session. It
// answers only rows the session's principal may read (its own, or all
// with journal_read_all) and asks its gate for journal_read before it
// answers anything, returning a `denied` language error when refused.
type JournalSource interface {
	// Query returns entries matching f, newest first, at most f.Limit.
	Query(ctx context.Context, f JournalFilter) ([]JournalEntry, error)
	// Entry returns one entry by id (a `not_found` language error when
	// there is none the caller may read).
	Entry(ctx context.Context, id int64) (JournalEntry, error)
	// Principal is the principal the session runs as; undo reverses only
	// that principal's entries.
	Principal() string
}

var journalFlags = []leash.FlagSpec{
	{Long: "head", Value: true},
	{Long: "principal", Value: true},
	{Long: "session", Value: true},
	{Long: "limit", Value: true},
	{Long: "ok", Value: true},
	{Long: "failed"},
	{Long: "effect", Value: true},
	{Long: "since", Value: true},
	{Long: "until", Value: true},
}

func registerJournal(p *Part) {
	for name, help := range map[string]Help{
		"journal": {Summary: "the kernel's execution journal, newest first, as a table", Usage: "journal [--FILTER=VALUE...]", Example: "journal --limit=20\njournal --failed --head=rm"},
		"history": {Summary: "the kernel's execution journal (as journal)", Usage: "history [--FILTER=VALUE...]", Example: "history --head=git --limit=5"},
	} {
		p.Builtin(&Builtin{Name: name, Run: runJournal, Flags: journalFlags, Effects: effJournalRead, Help: help})
	}
	p.Builtin(&Builtin{Name: "undo", Help: Help{Summary: "reverse a journal entry whose inverse was recorded (the newest by default)", Usage: "undo [ENTRY_ID]", Example: "undo\nundo 42"}, Run: runUndo, Effects: effUndo})
}

// effJournalRead: the journal builtins read the journal and nothing else.
func effJournalRead(d *leash.Deriver) {
	d.Add(leash.Effect{Kind: EffectJournalRead}, leash.Reversible)
}

// effUndo: undo reads the journal, then reverses an entry chosen (or
// looked up) at run time: what it touches is not known before it runs.
func effUndo(d *leash.Deriver) {
	d.Add(leash.Effect{Kind: EffectJournalRead}, leash.Reversible)
	d.Opaque("undo reverses the filesystem effects of a journal entry chosen at run time")
}

func journalSource(c *BuiltinCall) (JournalSource, error) {
	if js := c.t.in.opts.Journal; js != nil {
		return js, nil
	}
	return nil, c.Errorf(codeUnavailable, "this session has no journal").
		WithHint("the journal is kept by shoal-kernel: run inside a kernel session, or use `shoal history` against a running kernel; in the shoal REPL, history lists the lines you typed")
}

// journalFilterOf reads the declared flags into a filter.
func journalFilterOf(c *BuiltinCall) (JournalFilter, error) {
	var f JournalFilter
	text := func(name string) (string, bool, error) {
		v, ok := c.FlagValue(name)
		if !ok {
			if c.Flag(name) {
				return "", false, c.Errorf(codeArg, "--%s needs a value", name).WithHint("--" + name + "=VALUE")
			}
			return "", false, nil
		}
		s, err := argText(v)
		if err != nil {
			return "", false, c.Errorf(codeArg, "--%s: %v", name, err)
		}
		return s, true, nil
	}
	var err error
	if f.Head, _, err = text("head"); err != nil {
		return f, err
	}
	if f.Principal, _, err = text("principal"); err != nil {
		return f, err
	}
	if f.Session, _, err = text("session"); err != nil {
		return f, err
	}
	if s, ok, err := text("limit"); err != nil {
		return f, err
	} else if ok {
		n, perr := strconv.Atoi(s)
		if perr != nil || n < 1 || n > JournalMaxLimit {
			return f, c.Errorf(codeArg, "--limit=%s: want a whole number from 1 to %d", s, JournalMaxLimit)
		}
		f.Limit = n
	}
	if s, ok, err := text("ok"); err != nil {
		return f, err
	} else if ok {
		b, perr := strconv.ParseBool(s)
		if perr != nil {
			return f, c.Errorf(codeArg, "--ok=%s: want true or false", s)
		}
		f.OK = &b
	}
	if c.Flag("failed") {
		if f.OK != nil && *f.OK {
			return f, c.Errorf(codeArg, "--failed contradicts --ok=true")
		}
		no := false
		f.OK = &no
	}
	for _, fl := range c.Flags {
		if fl.Name != "effect" {
			continue
		}
		if fl.Value == nil {
			return f, c.Errorf(codeArg, "--effect needs a value").WithHint("--effect=fs_delete")
		}
		s, err := argText(fl.Value)
		if err != nil || s == "" {
			return f, c.Errorf(codeArg, "--effect needs an effect kind such as fs_delete")
		}
		if len(f.Effects) == JournalMaxEffectFilters {
			return f, c.Errorf(codeArg, "at most %d --effect filters", JournalMaxEffectFilters)
		}
		f.Effects = append(f.Effects, s)
	}
	for _, tf := range []struct {
		name string
		dst  *int64
	}{{"since", &f.Since}, {"until", &f.Until}} {
		v, ok := c.FlagValue(tf.name)
		if !ok {
			if c.Flag(tf.name) {
				return f, c.Errorf(codeArg, "--%s needs a time", tf.name)
			}
			continue
		}
		ns, err := journalTime(v)
		if err != nil {
			return f, c.Errorf(codeArg, "--%s: %v", tf.name, err)
		}
		*tf.dst = ns
	}
	if f.Limit == 0 {
		f.Limit = JournalDefaultLimit
	}
	return f, nil
}

// journalTime reads a time bound: a datetime value, an RFC 3339 text, or
// whole Unix nanoseconds.
func journalTime(v value.Value) (int64, error) {
	switch x := v.(type) {
	case value.DateTime:
		return x.T.UnixNano(), nil
	case value.Int:
		return int64(x), nil
	}
	s, err := argText(v)
	if err != nil {
		return 0, err
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixNano(), nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	return 0, errorf(codeArg, "%q is neither an RFC 3339 time nor Unix nanoseconds", s)
}

// journalCols are the columns of the journal and history tables.
var journalCols = []string{"id", "ts", "session", "principal", "src", "ok", "status", "effects", "finished", "reversible", "outputs"}

func runJournal(c *BuiltinCall) (value.Value, error) {
	if len(c.Args) > 0 {
		return nil, c.Errorf(codeArg, "takes no positional arguments").
			WithHint(c.Name + " [--head=WORD] [--principal=NAME] [--session=ID] [--ok=BOOL|--failed] [--effect=KIND]... [--since=T] [--until=T] [--limit=N]")
	}
	f, err := journalFilterOf(c)
	if err != nil {
		return nil, err
	}
	if c.Name == "history" && c.t.in.opts.Journal == nil && c.t.in.lineHistory != nil {
		return lineHistoryTable(c, f)
	}
	js, err := journalSource(c)
	if err != nil {
		return nil, err
	}
	entries, err := js.Query(c.Ctx(), f)
	if err != nil {
		return nil, err
	}
	if len(entries) > f.Limit {
		entries = entries[:f.Limit]
	}
	return journalTable(entries), nil
}

// journalTable lays entries out as the journal table.
func journalTable(entries []JournalEntry) *value.Table {
	t := &value.Table{Cols: journalCols, Data: make([][]value.Value, len(journalCols)), N: len(entries)}
	for i := range t.Data {
		t.Data[i] = make([]value.Value, len(entries))
	}
	for r, e := range entries {
		var status value.Value = value.Nil
		if e.Status != nil {
			status = value.Int(*e.Status)
		}
		effs := make([]value.Value, len(e.Effects))
		for i, k := range e.Effects {
			effs[i] = value.Str(k)
		}
		outs := make([]value.Value, len(e.Outputs))
		for i, o := range e.Outputs {
			outs[i] = value.NewRecord([]string{"kind", "len", "ref"}, []value.Value{value.Str(o.Kind), value.Int(o.Len), value.Str(o.Ref)})
		}
		row := []value.Value{
			value.Int(e.ID),
			value.DateTime{T: time.Unix(0, e.StartNS).UTC()},
			value.Str(e.Session),
			value.Str(e.Principal),
			value.Str(e.Src),
			value.Bool(e.OK),
			status,
			value.NewList(effs),
			value.Bool(e.FinishNS != 0),
			value.Bool(len(e.Undo) > 0 && e.UndoLost == ""),
			value.NewList(outs),
		}
		for col, v := range row {
			t.Data[col][r] = v
		}
	}
	return t
}
