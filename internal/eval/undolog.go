package eval

// The undo log: the inverse steps file system builtins record while an
// evaluation runs (UndoLog), which the host surface stores with the
// journal entry and the journal library's `undo` replays.
//
// What is recorded: `rm` (to the trash) records a restore of each target
// from its trash path; `mv` a move back of each source; `mkdir` (without
// -p) of a new directory, `touch` of a new file and `cp` of a file to a
// new path a removal of the new path. Anything else that changes the world
// (rm --permanent, cp -r or cp into a directory, mkdir -p, ln, redirects,
// save, spawned programs) marks the log lost: the entry then has no
// complete inverse and undo refuses it. Recording asks the host for
// nothing: each step's fingerprint comes from what the builtin already
// looked at before it acted.

import (
	"context"
	"io/fs"
	"strconv"
	"sync"
)

// Undo step operations.
const (
	UndoRestore  = "restore"   // move From (a trash path) back to Path
	UndoMoveBack = "move_back" // move From (an mv destination) back to Path
	UndoRemove   = "remove"    // remove Path, which the entry created
)

// UndoStep is one recorded inverse. The journal stores it as JSON (the
// tags below) beside the entry; Dir, Size and ModNS fingerprint the thing
// the step moves or removes, and undo refuses (stale_undo) when it no
// longer matches.
type UndoStep struct {
	Op    string `json:"op"`
	Path  string `json:"path"`           // absolute: where the thing was, or the path created
	From  string `json:"from,omitempty"` // absolute: where the thing is now (restore, move_back)
	Dir   bool   `json:"dir,omitempty"`
	Size  int64  `json:"size"`               // files only
	ModNS int64  `json:"mtime_ns,omitempty"` // 0: not checked
}

// UndoLog collects the inverse steps of one evaluation. The host surface
// puts one in the context it evaluates with (WithUndoLog) and stores
// Steps with the journal entry. It keeps at most MaxUndoSteps steps;
// past that, or after any effect without an inverse, it is lost.
type UndoLog struct {
	mu    sync.Mutex
	steps []UndoStep
	lost  string // why the log has no complete inverse; "" when it has
}

// Steps returns the recorded steps, oldest first, and why the log has no
// complete inverse ("" when it has one).
func (l *UndoLog) Steps() ([]UndoStep, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]UndoStep(nil), l.steps...), l.lost
}

// UndoRecord is an UndoLog as the journal stores it (as JSON, beside the
// entry): the steps oldest first and, when the entry has no complete
// inverse, why.
type UndoRecord struct {
	Steps []UndoStep `json:"steps"`
	Lost  string     `json:"lost,omitempty"`
}

// Record returns the log as the journal stores it.
func (l *UndoLog) Record() UndoRecord {
	steps, lost := l.Steps()
	if steps == nil {
		steps = []UndoStep{}
	}
	return UndoRecord{Steps: steps, Lost: lost}
}

func (l *UndoLog) add(s UndoStep) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.steps) >= MaxUndoSteps {
		if l.lost == "" {
			l.lost = "more than " + strconv.Itoa(MaxUndoSteps) + " reversible steps"
		}
		return
	}
	l.steps = append(l.steps, s)
}

func (l *UndoLog) lose(why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost == "" {
		l.lost = why
	}
}

type undoLogKey struct{}

// WithUndoLog returns a context whose evaluations record into l.
func WithUndoLog(ctx context.Context, l *UndoLog) context.Context {
	return context.WithValue(ctx, undoLogKey{}, l)
}

func undoLogOf(ctx context.Context) *UndoLog {
	l, _ := ctx.Value(undoLogKey{}).(*UndoLog)
	return l
}

// undoRecord records s when the evaluation keeps an undo log.
func undoRecord(ctx context.Context, s UndoStep) {
	if l := undoLogOf(ctx); l != nil {
		l.add(s)
	}
}

// undoLose marks the evaluation's undo log as having no complete inverse.
func undoLose(ctx context.Context, why string) {
	if l := undoLogOf(ctx); l != nil {
		l.lose(why)
	}
}

// undoFingerprint is a step's fingerprint of what fi describes.
func undoFingerprint(s UndoStep, fi fs.FileInfo) UndoStep {
	s.Dir = fi.IsDir()
	if !s.Dir {
		s.Size = fi.Size()
		s.ModNS = fi.ModTime().UnixNano()
	}
	return s
}
