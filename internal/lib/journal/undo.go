package journal

// undo: replays, newest first, the inverse steps a journal entry's
// builtins recorded (eval.UndoLog), after checking every step still
// matches the file system it would touch (stale_undo when not).

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// runUndo is `undo [ID]`.
func runUndo(c *eval.BuiltinCall) (value.Value, error) {
	if len(c.Args) > 1 {
		return nil, c.Errorf(value.CodeArg, "takes at most one entry id").WithHint("undo [ENTRY_ID]")
	}
	var id int64
	if len(c.Args) == 1 {
		n, err := undoID(c.Args[0])
		if err != nil {
			return nil, c.Errorf(value.CodeArg, "%v", err).WithHint("undo [ENTRY_ID]")
		}
		id = n
	}
	js, err := journalSource(c)
	if err != nil {
		return nil, err
	}
	var e eval.JournalEntry
	if id != 0 {
		if e, err = js.Entry(c.Ctx(), id); err != nil {
			return nil, err
		}
		if err := undoEligible(c, js, e); err != nil {
			return nil, err
		}
		if err := undoVerify(c, e); err != nil {
			return nil, err
		}
	} else if e, err = undoNewest(c, js); err != nil {
		return nil, err
	}
	actions, err := undoApply(c, e)
	if err != nil {
		return nil, err
	}
	acts := make([]value.Value, len(actions))
	for i, a := range actions {
		acts[i] = value.Str(a)
	}
	return value.NewRecord([]string{"entry", "undone", "actions"},
		[]value.Value{value.Int(e.ID), value.Int(len(actions)), value.NewList(acts)}), nil
}

func undoID(v value.Value) (int64, error) {
	var n int64
	switch x := v.(type) {
	case value.Int:
		n = int64(x)
	default:
		s, err := eval.CommandText(v)
		if err != nil {
			return 0, errors.New("the entry id must be a whole number")
		}
		if n, err = strconv.ParseInt(s, 10, 64); err != nil {
			return 0, errors.New("the entry id must be a whole number, not " + strconv.Quote(s))
		}
	}
	if n < 1 {
		return 0, errors.New("the entry id must be positive")
	}
	return n, nil
}

// undoEligible refuses an entry that has no complete recorded inverse or
// belongs to another principal.
func undoEligible(c *eval.BuiltinCall, js eval.JournalSource, e eval.JournalEntry) error {
	refuse := func(why string) error {
		return c.Errorf(value.CodeNotReversible, "entry %d cannot be undone: %s", e.ID, why).
			WithHint("undo reverses rm (to the trash), mv, and cp/mkdir/touch of new paths; nothing was touched")
	}
	switch {
	case e.Principal != js.Principal():
		return refuse("it belongs to principal " + strconv.Quote(e.Principal))
	case e.UndoLost != "":
		return refuse("it did something with no recorded inverse (" + e.UndoLost + ")")
	case len(e.Undo) == 0:
		return refuse("it recorded no reversible effects")
	}
	for _, k := range e.Effects {
		switch k {
		case "proc_spawn", "net_connect", "net_listen", "env_write":
			return refuse("it has a " + k + " effect, which cannot be reversed")
		}
	}
	return nil
}

// undoNewest finds the newest of the principal's last MaxUndoScan entries
// that is eligible and still matches its fingerprints.
func undoNewest(c *eval.BuiltinCall, js eval.JournalSource) (eval.JournalEntry, error) {
	entries, err := js.Query(c.Ctx(), eval.JournalFilter{Principal: js.Principal(), Limit: MaxUndoScan})
	if err != nil {
		return eval.JournalEntry{}, err
	}
	for _, e := range entries {
		if undoEligible(c, js, e) != nil {
			continue
		}
		err := undoVerify(c, e)
		if err == nil {
			return e, nil
		}
		var ve *value.Error
		if !errors.As(err, &ve) || ve.Code != value.CodeStaleUndo {
			return eval.JournalEntry{}, err // a refusal or a failure, not a stale entry
		}
	}
	return eval.JournalEntry{}, c.Errorf(value.CodeNotFound, "none of your last %d journal entries can be undone", MaxUndoScan).
		WithHint("undo ID names an entry; journal shows the reversible column")
}

// undoState is what undo knows of a path while it checks the steps.
type undoState struct {
	exists bool
	dir    bool
	size   int64
	modNS  int64
}

// undoVerify checks every step, newest first, against the filesystem as
// the earlier (newer) steps would leave it, touching nothing: a path is
// looked up by mapping it back through the moves and removals already
// planned, so steps on a tree that a later step moved are judged where
// the tree will be.
func undoVerify(c *eval.BuiltinCall, e eval.JournalEntry) error {
	type planned struct{ from, to string } // a move from→to, or a removal of to (from "")
	var done []planned
	look := func(ctx context.Context, p string) (undoState, error) {
		for i := len(done) - 1; i >= 0; i-- {
			d := done[i]
			if rest, ok := undoUnder(p, d.to); ok {
				if d.from == "" {
					return undoState{}, nil // removed
				}
				p = d.from + rest
			} else if _, ok := undoUnder(p, d.from); ok && d.from != "" {
				return undoState{}, nil // moved away
			}
		}
		fi, err := c.Host().Lstat(ctx, p)
		if err != nil {
			if eval.PassThrough(err) {
				return undoState{}, err
			}
			if errors.Is(err, fs.ErrNotExist) {
				return undoState{}, nil
			}
			return undoState{}, c.FileError(p, err)
		}
		s := undoState{exists: true, dir: fi.IsDir()}
		if !s.dir {
			s.size, s.modNS = fi.Size(), fi.ModTime().UnixNano()
		}
		return s, nil
	}
	stale := func(s eval.UndoStep, why string) error {
		return c.Errorf(value.CodeStaleUndo, "entry %d: %s %s: %s", e.ID, s.Op, s.Path, why).
			WithHint("the path changed after the entry ran; nothing was touched")
	}
	matches := func(s eval.UndoStep, st undoState) bool {
		if !st.exists || st.dir != s.Dir {
			return false
		}
		return s.Dir || st.size == s.Size && (s.ModNS == 0 || st.modNS == s.ModNS)
	}
	for i := len(e.Undo) - 1; i >= 0; i-- {
		s := e.Undo[i]
		if !filepath.IsAbs(s.Path) || s.Op != eval.UndoRemove && !filepath.IsAbs(s.From) {
			return c.Errorf(value.CodeNotReversible, "entry %d: step %d has a relative path", e.ID, i)
		}
		s.Path, s.From = filepath.Clean(s.Path), filepath.Clean(s.From)
		switch s.Op {
		case eval.UndoRestore, eval.UndoMoveBack:
			src, err := look(undoFromCtx(c, s), s.From)
			if err != nil {
				return err
			}
			if !matches(s, src) {
				return stale(s, s.From+" is gone or was changed")
			}
			dst, err := look(c.Ctx(), s.Path)
			if err != nil {
				return err
			}
			if dst.exists {
				return stale(s, "something is at "+s.Path+" again")
			}
			parent, err := look(c.Ctx(), filepath.Dir(s.Path))
			if err != nil {
				return err
			}
			if !parent.exists || !parent.dir {
				return stale(s, "its directory "+filepath.Dir(s.Path)+" is gone")
			}
			done = append(done, planned{from: s.From, to: s.Path})
		case eval.UndoRemove:
			st, err := look(c.Ctx(), s.Path)
			if err != nil {
				return err
			}
			if !matches(s, st) {
				return stale(s, "it is gone or was changed")
			}
			done = append(done, planned{to: s.Path})
		default:
			return c.Errorf(value.CodeNotReversible, "entry %d: step %d has unknown op %q", e.ID, i, s.Op)
		}
	}
	return nil
}

// undoUnder reports whether p is dir or beneath it, and the rest of p
// after dir ("" or "/…").
func undoUnder(p, dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	if p == dir {
		return "", true
	}
	if strings.HasPrefix(p, dir) && (strings.HasSuffix(dir, "/") || p[len(dir)] == '/') {
		return p[len(dir):], true
	}
	return "", false
}

// undoApply runs the steps newest first. A failure part way (a refusal
// by the gate, a race with another writer) is returned naming what was
// already undone.
func undoApply(c *eval.BuiltinCall, e eval.JournalEntry) ([]string, error) {
	var done []string
	for i := len(e.Undo) - 1; i >= 0; i-- {
		s := e.Undo[i]
		var err error
		var act string
		switch s.Op {
		case eval.UndoRestore, eval.UndoMoveBack:
			err = undoMove(c, undoFromCtx(c, s), s.From, s.Path)
			act = s.Op + " " + s.From + " -> " + s.Path
		case eval.UndoRemove:
			err = c.Host().Remove(c.Ctx(), s.Path, false)
			act = "remove " + s.Path
		}
		if err != nil {
			err = c.FileError(s.Path, err)
			if len(done) == 0 {
				return nil, err
			}
			var ve *value.Error
			if errors.As(err, &ve) {
				return nil, ve.WithHint("already undone: " + joinActions(done))
			}
			return nil, err
		}
		done = append(done, act)
	}
	return done, nil
}

func joinActions(a []string) string {
	out := ""
	for i, s := range a {
		if i > 0 {
			out += "; "
		}
		out += s
	}
	return out
}

// undoMove renames from back to to, copying across filesystems; fromCtx
// is the context for the ops on from (undoFromCtx).
func undoMove(c *eval.BuiltinCall, fromCtx context.Context, from, to string) error {
	err := c.Host().Rename(fromCtx, from, to)
	if err == nil || !errors.Is(err, syscall.EXDEV) {
		return err
	}
	if err := c.Host().Copy(fromCtx, from, to, true); err != nil {
		return err
	}
	return c.Host().Remove(fromCtx, from, true)
}

// undoFromCtx is the context for a step's ops on its From path: a restore
// takes its item out of the kernel's trash, which only a context marked as
// a trash move may reach (policy.Grants.WithTrash); any other step's From
// is judged as any path is.
func undoFromCtx(c *eval.BuiltinCall, s eval.UndoStep) context.Context {
	if s.Op == eval.UndoRestore {
		return host.WithTrashMove(c.Ctx())
	}
	return c.Ctx()
}
