// Package journal is the journal library: `journal` and `history` (two
// names for one view of the session host's durable execution journal),
// `undo` (undo.go), which reverses an entry from the inverse steps its
// builtins recorded, and `history` over the REPL's typed lines when there
// is no journal (linehistory.go). The journal itself is the host
// surface's (the kernel's), reached through eval's Context.Journal;
// without one every journal builtin fails with `unavailable`. Its entries
// are one registry Part.
package journal

import (
	"strconv"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

// journalFlags are the filters journal and history declare.
func journalFlags() []leash.FlagSpec {
	return []leash.FlagSpec{
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
}

// Register adds journal, history and undo to p.
func Register(p *eval.Part) {
	flags := journalFlags()
	for name, help := range map[string]eval.Help{
		"journal": {Summary: "the kernel's execution journal, newest first, as a table", Usage: "journal [--FILTER=VALUE...]", Example: "journal --limit=20\njournal --failed --head=rm"},
		"history": {Summary: "the kernel's execution journal (as journal)", Usage: "history [--FILTER=VALUE...]", Example: "history --head=git --limit=5"},
	} {
		p.Builtin(&eval.Builtin{Name: name, Run: runJournal, Flags: flags, Effects: effJournalRead, Help: help})
	}
	p.Builtin(&eval.Builtin{Name: "undo", Help: eval.Help{Summary: "reverse a journal entry whose inverse was recorded (the newest by default)", Usage: "undo [ENTRY_ID]", Example: "undo\nundo 42"}, Run: runUndo, Effects: effUndo})
}

// Part is journal's registry part, for eval.NewRegistry.
func Part() *eval.Part {
	p := &eval.Part{}
	Register(p)
	return p
}

// effJournalRead: the journal builtins read the journal and nothing else.
func effJournalRead(d *leash.Deriver) {
	d.Add(leash.Effect{Kind: eval.EffectJournalRead}, leash.Reversible)
}

// effUndo: undo reads the journal, then reverses an entry chosen (or
// looked up) at run time: what it touches is not known before it runs.
func effUndo(d *leash.Deriver) {
	d.Add(leash.Effect{Kind: eval.EffectJournalRead}, leash.Reversible)
	d.Opaque("undo reverses the filesystem effects of a journal entry chosen at run time")
}

// journalSource is the session's journal, or unavailable.
func journalSource(c *eval.BuiltinCall) (eval.JournalSource, error) {
	if js := c.Journal(); js != nil {
		return js, nil
	}
	return nil, c.Errorf(value.CodeUnavailable, "this session has no journal").
		WithHint("the journal is kept by shoal-kernel: run inside a kernel session, or use `shoal history` against a running kernel; in the shoal REPL, history lists the lines you typed")
}

// journalFilterOf reads the declared flags into a filter.
func journalFilterOf(c *eval.BuiltinCall) (eval.JournalFilter, error) {
	var f eval.JournalFilter
	text := func(name string) (string, bool, error) {
		v, ok := c.FlagValue(name)
		if !ok {
			if c.Flag(name) {
				return "", false, c.Errorf(value.CodeArg, "--%s needs a value", name).WithHint("--" + name + " VALUE, or --" + name + "=VALUE for a value that starts with -")
			}
			return "", false, nil
		}
		s, err := eval.CommandText(v)
		if err != nil {
			return "", false, c.Errorf(value.CodeArg, "--%s: %v", name, err)
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
		if perr != nil || n < 1 || n > MaxLimit {
			return f, c.Errorf(value.CodeArg, "--limit=%s: want a whole number from 1 to %d", s, MaxLimit)
		}
		f.Limit = n
	}
	if s, ok, err := text("ok"); err != nil {
		return f, err
	} else if ok {
		b, perr := strconv.ParseBool(s)
		if perr != nil {
			return f, c.Errorf(value.CodeArg, "--ok=%s: want true or false", s)
		}
		f.OK = &b
	}
	if c.Flag("failed") {
		if f.OK != nil && *f.OK {
			return f, c.Errorf(value.CodeArg, "--failed contradicts --ok=true")
		}
		no := false
		f.OK = &no
	}
	for _, fl := range c.Flags {
		if fl.Name != "effect" {
			continue
		}
		if fl.Value == nil {
			return f, c.Errorf(value.CodeArg, "--effect needs a value").WithHint("--effect=fs_delete")
		}
		s, err := eval.CommandText(fl.Value)
		if err != nil || s == "" {
			return f, c.Errorf(value.CodeArg, "--effect needs an effect kind such as fs_delete")
		}
		if len(f.Effects) == MaxEffectFilters {
			return f, c.Errorf(value.CodeArg, "at most %d --effect filters", MaxEffectFilters)
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
				return f, c.Errorf(value.CodeArg, "--%s needs a time", tf.name)
			}
			continue
		}
		ns, err := journalTime(v)
		if err != nil {
			return f, c.Errorf(value.CodeArg, "--%s: %v", tf.name, err)
		}
		*tf.dst = ns
	}
	if f.Limit == 0 {
		f.Limit = DefaultLimit
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
	s, err := eval.CommandText(v)
	if err != nil {
		return 0, err
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixNano(), nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	return 0, value.Errorf(value.CodeArg, "%q is neither an RFC 3339 time nor Unix nanoseconds", s)
}

// journalCols are the columns of the journal and history tables.
func journalCols() []string {
	return []string{"id", "ts", "session", "principal", "src", "ok", "status", "effects", "finished", "reversible", "outputs"}
}

func runJournal(c *eval.BuiltinCall) (value.Value, error) {
	if len(c.Args) > 0 {
		return nil, c.Errorf(value.CodeArg, "takes no positional arguments").
			WithHint(c.Name + " [--head=WORD] [--principal=NAME] [--session=ID] [--ok=BOOL|--failed] [--effect=KIND]... [--since=T] [--until=T] [--limit=N]")
	}
	f, err := journalFilterOf(c)
	if err != nil {
		return nil, err
	}
	if lines, ok := c.LineHistory(); ok && c.Name == "history" && c.Journal() == nil {
		return lineHistoryTable(c, lines, f)
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

// okCell is a row's ok: null while it has not finished (it is running, or
// the kernel died first), since neither true nor false would be so.
func okCell(e eval.JournalEntry) value.Value {
	if e.FinishNS == 0 {
		return value.Nil
	}
	return value.Bool(e.OK)
}

// journalTable lays entries out as the journal table.
func journalTable(entries []eval.JournalEntry) *value.Table {
	cols := journalCols()
	t := &value.Table{Cols: cols, Data: make([][]value.Value, len(cols)), N: len(entries)}
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
			okCell(e),
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
