package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/lib/journal"
	"github.com/shoalgo/shoal/internal/value"
)

// fakeJournal is an in-memory JournalSource. It filters as the kernel's
// journal does (newest first, all-of effects, exact limit) and answers
// `denied` when deny is set, as a gate refusing journal_read would.
type fakeJournal struct {
	mu      sync.Mutex
	self    string
	entries []eval.JournalEntry // oldest first
	deny    bool
	queries []eval.JournalFilter
}

func (j *fakeJournal) Principal() string { return j.self }

func (j *fakeJournal) Query(_ context.Context, f eval.JournalFilter) ([]eval.JournalEntry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.queries = append(j.queries, f)
	if j.deny {
		return nil, host.Denied(host.Op{Effect: eval.EffectJournalRead}, "journal_read = false")
	}
	var out []eval.JournalEntry
	for i := len(j.entries) - 1; i >= 0 && len(out) < f.Limit; i-- {
		e := j.entries[i]
		head, _, _ := strings.Cut(e.Src, " ")
		switch {
		case f.Head != "" && head != f.Head,
			f.Principal != "" && e.Principal != f.Principal,
			f.Session != "" && e.Session != f.Session,
			f.OK != nil && (e.OK != *f.OK || e.FinishNS == 0), // as the store: failed means finished and not ok
			f.Since != 0 && e.StartNS < f.Since,
			f.Until != 0 && e.StartNS >= f.Until:
			continue
		}
		all := true
		for _, k := range f.Effects {
			all = all && slices.Contains(e.Effects, k)
		}
		if all {
			out = append(out, e)
		}
	}
	return out, nil
}

func (j *fakeJournal) Entry(_ context.Context, id int64) (eval.JournalEntry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.deny {
		return eval.JournalEntry{}, host.Denied(host.Op{Effect: eval.EffectJournalRead}, "journal_read = false")
	}
	for _, e := range j.entries {
		if e.ID == id {
			return e, nil
		}
	}
	return eval.JournalEntry{}, value.Errorf(value.CodeNotFound, "no journal entry %d", id)
}

// record runs src as one journaled entry of principal me, the way the
// kernel does: with an UndoLog in the context, the steps stored with the
// row.
func (j *fakeJournal) record(t *testing.T, in *eval.Interp, src string, effects ...string) (eval.JournalEntry, error) {
	t.Helper()
	log := &eval.UndoLog{}
	_, err := in.Eval(eval.WithUndoLog(context.Background(), log), src)
	steps, lost := log.Steps()
	j.mu.Lock()
	defer j.mu.Unlock()
	e := eval.JournalEntry{
		ID: int64(len(j.entries) + 1), StartNS: int64(len(j.entries)+1) * 1e9, FinishNS: 1,
		Session: "s1", Principal: j.self, Src: src, OK: err == nil, Effects: effects,
		Undo: steps, UndoLost: lost,
	}
	j.entries = append(j.entries, e)
	return e, err
}

// journalSession is a session (helpers_test.go) whose journal is a
// fakeJournal of principal me.
func journalSession(t *testing.T, h host.Host, files map[string]string) (*eval.Interp, string, *fakeJournal) {
	t.Helper()
	j := &fakeJournal{self: "me"}
	in, dir := session(t, h, files, j)
	return in, dir, j
}

func TestJournalFilters(t *testing.T) {
	zero, one := 0, 1
	entries := []eval.JournalEntry{
		{ID: 1, StartNS: 1e9, FinishNS: 2e9, Session: "s1", Principal: "me", Src: "rm a.txt", OK: true, Status: &zero, Effects: []string{"fs_read", "fs_delete", "fs_write"}},
		{ID: 2, StartNS: 2e9, FinishNS: 3e9, Session: "s1", Principal: "agent", Src: "git status", OK: false, Status: &one, Effects: []string{"proc_spawn"}},
		{ID: 3, StartNS: 3e9, Session: "s2", Principal: "me", Src: "rm b.txt", OK: false, Effects: []string{"fs_read", "fs_delete"}},
		{ID: 4, StartNS: 4e9, FinishNS: 5e9, Session: "s2", Principal: "me", Src: "1 + 1", OK: true},
	}
	cases := []struct {
		src  string
		want string // inline rendering, or an error code after "!"
	}{
		{"(journal).map(.id)", "[4, 3, 2, 1]"},
		{"(history).map(.id)", "[4, 3, 2, 1]"},
		{"(journal --head=rm).map(.id)", "[3, 1]"},
		{"(history --principal=agent).map(.src)", `["git status"]`},
		{"(journal --session=s2).map(.id)", "[4, 3]"},
		{"(journal --failed).map(.id)", "[2]"}, // 3 has not finished: not failed
		{"(journal --ok=true).map(.id)", "[4, 1]"},
		{"(journal --effect=fs_delete --effect=fs_write).map(.id)", "[1]"},
		{"(journal --effect=fs_delete).map(.id)", "[3, 1]"},
		{"(journal --limit=2).map(.id)", "[4, 3]"},
		{"(journal --head=rm --limit=1).map(.id)", "[3]"},
		// a value flag takes the next word as `=` would give it
		{"(journal --limit 2).map(.id)", "[4, 3]"},
		{"(history --head rm --limit 1).map(.id)", "[3]"},
		{`(journal --until "1970-01-01T00:00:03Z").map(.id)`, "[2, 1]"},
		{"(journal --effect fs_delete --effect fs_write).map(.id)", "[1]"},
		{"(journal --ok false --limit=1).map(.id)", "[2]"},
		{"journal --limit", "!arg_error"},
		{"journal --limit --failed", "!arg_error"},
		{"journal --limit -- 2", "!arg_error"},
		{"journal --failed 2", "!arg_error"},
		{"(journal --since=2000000000 --until=4000000000).map(.id)", "[3, 2]"},
		{`(journal --until="1970-01-01T00:00:03Z").map(.id)`, "[2, 1]"},
		{"(journal --head=git).first().status", "1"},
		{"(journal --head=git).first().ok", "false"},
		{"(journal --session=s2 --head=rm).first().finished", "false"},
		{"(journal --limit=1).first().effects", "[]"},
		{"(journal --head=rm --limit=1).first().effects", `["fs_read", "fs_delete"]`},
		{"(journal --head=git).first().ts", "1970-01-01T00:00:02Z"},
		{"(journal).where(.ok == false).len()", "1"},
		{"(journal --session=s2 --head=rm).first().ok", "null"}, // not finished: neither ok nor failed
		{"journal.where(.ok == false).map(.id)", "[2]"},
		{"journal --bogus", "!arg_error"},
		{"journal -l", "!arg_error"},
		{"journal --limit=x", "!arg_error"},
		{"journal --limit=0", "!arg_error"},
		{"journal --limit=100000", "!arg_error"},
		{"journal --ok=maybe", "!arg_error"},
		{"journal --ok=true --failed", "!arg_error"},
		{"journal --since=yesterday", "!arg_error"},
		{"journal 3", "!arg_error"},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			in, _, j := journalSession(t, host.NewOS(host.AllowAll), nil)
			j.entries = entries
			v, err := in.Eval(context.Background(), tc.src)
			if want, ok := strings.CutPrefix(tc.want, "!"); ok {
				if code(err) != want {
					t.Fatalf("got %v (%v), want %s", err, v, want)
				}
				if len(j.queries) != 0 {
					t.Errorf("bad flags still queried the journal: %+v", j.queries)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := value.Inline(v); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestJournalTableColumns(t *testing.T) {
	in, _, j := journalSession(t, host.NewOS(host.AllowAll), nil)
	ref := "val:blake3:" + strings.Repeat("ab", 32)
	j.entries = []eval.JournalEntry{{ID: 1, Principal: "me", Src: "1", Outputs: []eval.JournalOutput{{Kind: "value", Len: 17, Ref: ref}}}}
	v, err := in.Eval(context.Background(), "journal")
	if err != nil {
		t.Fatal(err)
	}
	o, ok := v.(*value.Outcome)
	if !ok {
		t.Fatalf("journal gave %T", v)
	}
	tab, ok := o.Out.(*value.Table)
	if !ok {
		t.Fatalf("journal's value is %T, want a table", o.Out)
	}
	want := []string{"id", "ts", "session", "principal", "src", "ok", "status", "effects", "finished", "reversible", "outputs"}
	if !reflect.DeepEqual(tab.Cols, want) {
		t.Errorf("columns %v, want %v", tab.Cols, want)
	}
	if got, want := value.Inline(tab.Data[len(want)-1][0]), `[{kind: "value", len: 17, ref: "`+ref+`"}]`; got != want {
		t.Errorf("outputs = %s, want %s", got, want)
	}
	if q := j.queries[0]; q.Limit != journal.DefaultLimit {
		t.Errorf("default limit %d, want %d", q.Limit, journal.DefaultLimit)
	}
}

func TestJournalUnavailableWithoutSource(t *testing.T) {
	in, _ := session(t, host.NewOS(host.AllowAll), nil, nil)
	for _, src := range []string{"journal", "history --limit=3", "undo", "undo 1"} {
		if _, err := in.Eval(context.Background(), src); code(err) != value.CodeUnavailable {
			t.Errorf("%s: got %v, want %s", src, err, value.CodeUnavailable)
		}
	}
}

func TestJournalReadDenied(t *testing.T) {
	in, dir, j := journalSession(t, host.NewOS(host.AllowAll), map[string]string{"a.txt": "A"})
	if _, err := j.record(t, in, "rm a.txt", "fs_read", "fs_delete", "fs_write"); err != nil {
		t.Fatal(err)
	}
	j.deny = true
	for _, src := range []string{"journal", "history", "undo", "undo 1"} {
		if _, err := in.Eval(context.Background(), src); code(err) != "denied" {
			t.Errorf("%s: got %v, want denied", src, err)
		}
	}
	if exists(t, filepath.Join(dir, "a.txt")) {
		t.Error("a refused undo restored the file")
	}
}

// undoCase runs setup as one journaled entry, then undo (with the entry's
// id when byID), and checks the tree.
type undoCase struct {
	name  string
	files map[string]string
	setup string
	// after checks the tree once undo succeeded.
	after func(t *testing.T, dir string)
}

func TestUndoReverses(t *testing.T) {
	cases := []undoCase{
		{name: "rm restores from the trash", files: map[string]string{"a.txt": "A", "sub/x.txt": "X"}, setup: "rm a.txt sub",
			after: func(t *testing.T, dir string) {
				if read(t, filepath.Join(dir, "a.txt")) != "A" || read(t, filepath.Join(dir, "sub/x.txt")) != "X" {
					t.Error("rm not undone")
				}
			}},
		{name: "mv moves back", files: map[string]string{"a.txt": "A", "d/": ""}, setup: "mv a.txt d; mv d e",
			after: func(t *testing.T, dir string) {
				if read(t, filepath.Join(dir, "a.txt")) != "A" || !exists(t, filepath.Join(dir, "d")) || exists(t, filepath.Join(dir, "e")) {
					t.Error("mv not undone")
				}
			}},
		{name: "cp of a new path is removed", files: map[string]string{"a.txt": "A"}, setup: "cp a.txt b.txt",
			after: func(t *testing.T, dir string) {
				if exists(t, filepath.Join(dir, "b.txt")) || read(t, filepath.Join(dir, "a.txt")) != "A" {
					t.Error("cp not undone, or the source was touched")
				}
			}},
		{name: "mkdir and touch inside it", setup: "mkdir n; touch n/f.txt new.txt",
			after: func(t *testing.T, dir string) {
				for _, p := range []string{"n/f.txt", "n", "new.txt"} {
					if exists(t, filepath.Join(dir, p)) {
						t.Errorf("%s still exists", p)
					}
				}
			}},
		{name: "touch then rm of the same file", setup: "touch t.txt; rm t.txt",
			after: func(t *testing.T, dir string) {
				if exists(t, filepath.Join(dir, "t.txt")) {
					t.Error("t.txt exists")
				}
			}},
	}
	for _, tc := range cases {
		for _, byID := range []bool{true, false} {
			name := tc.name + map[bool]string{true: " (by id)", false: " (newest)"}[byID]
			t.Run(name, func(t *testing.T) {
				in, dir, j := journalSession(t, host.NewOS(host.AllowAll), tc.files)
				e, err := j.record(t, in, tc.setup, "fs_read", "fs_write", "fs_delete")
				if err != nil {
					t.Fatal(err)
				}
				if e.UndoLost != "" || len(e.Undo) == 0 {
					t.Fatalf("entry recorded no complete inverse: %+v", e)
				}
				src := "undo"
				if byID {
					src = "undo 1"
				}
				v, err := in.Eval(context.Background(), src)
				if err != nil {
					t.Fatal(err)
				}
				o := v.(*value.Outcome)
				if ev, _ := o.Out.(*value.Record).Get("entry"); value.Inline(ev) != "1" {
					t.Errorf("undid entry %s", value.Inline(ev))
				}
				if n, _ := o.Out.(*value.Record).Get("undone"); value.Inline(n) != strconv.Itoa(len(e.Undo)) {
					t.Errorf("undone %s, want %d", value.Inline(n), len(e.Undo))
				}
				tc.after(t, dir)
				// A second undo finds the entry already reversed.
				_, err = in.Eval(context.Background(), src)
				want := value.CodeStaleUndo
				if !byID {
					want = value.CodeNotFound
				}
				if code(err) != want {
					t.Errorf("second undo: %v, want %s", err, want)
				}
			})
		}
	}
}

func TestUndoRefuses(t *testing.T) {
	cases := []struct {
		name, setup string
		effects     []string
		between     func(t *testing.T, dir string) // changes after the entry ran
		code        string
		why         string // in the refusal's message
	}{
		{name: "rm --permanent", setup: "rm --permanent a.txt", code: value.CodeNotReversible, why: "rm --permanent"},
		{name: "a redirect", setup: "echo hi > b.txt", code: value.CodeNotReversible, why: "a redirect"},
		{name: "cp over an existing file", setup: "cp a.txt keep.txt", code: value.CodeNotReversible},
		{name: "cp into a directory", setup: "cp a.txt d", code: value.CodeNotReversible},
		{name: "mkdir -p", setup: "mkdir -p n/m", code: value.CodeNotReversible},
		{name: "a spawn", setup: "rm a.txt", effects: []string{"proc_spawn"}, code: value.CodeNotReversible, why: "proc_spawn"},
		{name: "a program ran", setup: "rm a.txt; sh -c true", code: value.CodeNotReversible, why: "a program ran"},
		{name: "nothing reversible", setup: "1 + 1", code: value.CodeNotReversible},
		{name: "the restored path is taken again", setup: "rm a.txt", code: value.CodeStaleUndo,
			between: func(t *testing.T, dir string) { evaltest.Fixture(t, dir, map[string]string{"a.txt": "new"}) }},
		{name: "the moved file changed", setup: "mv a.txt z.txt", code: value.CodeStaleUndo,
			between: func(t *testing.T, dir string) { evaltest.Fixture(t, dir, map[string]string{"z.txt": "changed!"}) }},
		{name: "the copy changed", setup: "cp a.txt c.txt", code: value.CodeStaleUndo,
			between: func(t *testing.T, dir string) { evaltest.Fixture(t, dir, map[string]string{"c.txt": "longer now"}) }},
		{name: "the new file was written", setup: "touch t.txt", code: value.CodeStaleUndo,
			between: func(t *testing.T, dir string) { evaltest.Fixture(t, dir, map[string]string{"t.txt": "data"}) }},
		{name: "the trash item is gone", setup: "rm a.txt", code: value.CodeStaleUndo,
			between: func(t *testing.T, dir string) {
				if err := os.RemoveAll(filepath.Join(filepath.Dir(dir), "tmp", "shoal-trash")); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "one stale step refuses the whole entry", setup: "rm a.txt; mv keep.txt k2.txt", code: value.CodeStaleUndo,
			between: func(t *testing.T, dir string) { evaltest.Fixture(t, dir, map[string]string{"a.txt": "again"}) }},
	}
	files := map[string]string{"a.txt": "A", "keep.txt": "K", "d/": ""}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, dir, j := journalSession(t, host.NewOS(host.AllowAll), files)
			effects := tc.effects
			if effects == nil {
				effects = []string{"fs_read", "fs_write", "fs_delete"}
			}
			if _, err := j.record(t, in, tc.setup, effects...); err != nil {
				t.Fatal(err)
			}
			if tc.between != nil {
				tc.between(t, dir)
			}
			root := filepath.Dir(dir)
			before := snapshot(t, root)
			_, err := in.Eval(context.Background(), "undo 1")
			if code(err) != tc.code {
				t.Fatalf("undo: %v, want %s", err, tc.code)
			}
			if !strings.Contains(err.Error(), tc.why) {
				t.Errorf("refusal %q does not say %q", err, tc.why)
			}
			if after := snapshot(t, root); !reflect.DeepEqual(before, after) {
				t.Errorf("a refused undo changed the tree:\nbefore %v\nafter  %v", before, after)
			}
			// Without an id nothing qualifies either.
			if _, err := in.Eval(context.Background(), "undo"); code(err) != value.CodeNotFound {
				t.Errorf("undo without id: %v, want %s", err, value.CodeNotFound)
			}
		})
	}
}

func TestUndoOtherPrincipalAndBadIDs(t *testing.T) {
	in, dir, j := journalSession(t, host.NewOS(host.AllowAll), map[string]string{"a.txt": "A"})
	if _, err := j.record(t, in, "rm a.txt", "fs_delete"); err != nil {
		t.Fatal(err)
	}
	j.entries[0].Principal = "agent"
	for src, want := range map[string]string{
		"undo 1": value.CodeNotReversible, "undo 9": value.CodeNotFound, "undo": value.CodeNotFound,
		"undo 0": value.CodeArg, "undo -2": value.CodeArg, "undo x": value.CodeArg, "undo 1 2": value.CodeArg,
	} {
		if _, err := in.Eval(context.Background(), src); code(err) != want {
			t.Errorf("%s: %v, want %s", src, err, want)
		}
	}
	if exists(t, filepath.Join(dir, "a.txt")) {
		t.Error("another principal's rm was undone")
	}
}

// TestUndoGoesThroughTheGate: undo under an authoriser that refuses the
// writes it needs is denied, and nothing is touched.
func TestUndoGoesThroughTheGate(t *testing.T) {
	var mu sync.Mutex
	denyWrites := false
	var asked []host.Op
	gate := host.AuthorizerFunc(func(ctx context.Context, op host.Op) error {
		mu.Lock()
		defer mu.Unlock()
		if denyWrites {
			asked = append(asked, op)
			if op.Effect != host.FSRead {
				return host.Denied(op, "test denies writes")
			}
		}
		return nil
	})
	in, dir, j := journalSession(t, host.NewOS(gate), map[string]string{"a.txt": "A"})
	if _, err := j.record(t, in, "rm a.txt", "fs_delete"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	denyWrites = true
	mu.Unlock()
	root := filepath.Dir(dir)
	before := snapshot(t, root)
	if _, err := in.Eval(context.Background(), "undo 1"); code(err) != "denied" {
		t.Fatalf("undo under a denying gate: %v", err)
	}
	if after := snapshot(t, root); !reflect.DeepEqual(before, after) {
		t.Errorf("tree changed:\nbefore %v\nafter  %v", before, after)
	}
	mu.Lock()
	defer mu.Unlock()
	wrote := false
	for _, op := range asked {
		wrote = wrote || op.Effect != host.FSRead
	}
	if !wrote {
		t.Errorf("the gate was never asked for the restore: %v", asked)
	}
}
