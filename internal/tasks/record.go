package tasks

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/proto"
)

// State is a task's lifecycle state.
type State string

// The task states. Cancelled, Failed, Completed and Interrupted are
// terminal.
const (
	Running    State = "running"
	Cancelling State = "cancelling"
	Cancelled  State = "cancelled"
	Failed     State = "failed"
	Completed  State = "completed"
	// Interrupted: the task was running when its kernel stopped; a
	// restarted kernel reports it so (see Registry.Restore).
	Interrupted State = "interrupted"
)

// Terminal reports whether s is a final state.
func (s State) Terminal() bool {
	return s == Cancelled || s == Failed || s == Completed || s == Interrupted
}

// Owner is the (principal, session) a task belongs to.
type Owner struct {
	Principal string
	Session   string
}

// Record is a snapshot of a task, the payload of task.get and friends.
type Record struct {
	Task       string // "task:N"
	Session    string // the owner's session name
	State      State
	StartedNs  int64  // Unix nanoseconds
	FinishedNs int64  // Unix nanoseconds; 0 until terminal
	ResultRef  string // set by the OnFinish hook; "" when none
	Err        error  // failure cause, ErrCancelled when cancelled, else nil
	Label      string // what was started (not part of the wire shape)
	Suspended  bool   // stopped through Suspend and not yet resumed
	TimedOut   bool   // set only by Await when its timeout expired
	Foreground bool   // started with StartForeground: a caller waits for it
	// Language is set for a task of the session's language (spawn, cmd &,
	// on handlers, parallel branches; see StartLanguage), whose Desc says
	// what it is, as `jobs` does.
	Language bool
	Desc     string
}

// Channel is the event channel of the task ("task.N").
func (r Record) Channel() string { return "task." + strings.TrimPrefix(r.Task, idPrefix) }

// Wire is the record in its wire shape (proto.TaskRecord): finished_ns,
// result_ref and error are null when absent; error is the message text;
// suspended, timed_out, foreground and language appear only when true,
// desc only when set.
func (r Record) Wire() proto.TaskRecord {
	w := proto.TaskRecord{Task: r.Task, Session: r.Session, State: string(r.State), StartedNs: r.StartedNs,
		Suspended: r.Suspended, TimedOut: r.TimedOut, Foreground: r.Foreground, Language: r.Language, Desc: r.Desc}
	if r.FinishedNs != 0 {
		w.FinishedNs = &r.FinishedNs
	}
	if r.ResultRef != "" {
		w.ResultRef = &r.ResultRef
	}
	if r.Err != nil {
		msg := r.Err.Error()
		w.Error = &msg
	}
	return w
}

// MarshalJSON renders the record in its wire shape (Wire).
func (r Record) MarshalJSON() ([]byte, error) {
	return json.Marshal(r.Wire())
}

const idPrefix = "task:"

func formatID(seq uint64) string { return idPrefix + strconv.FormatUint(seq, 10) }

// parseID accepts only the canonical "task:N" with N >= 1.
func parseID(id string) (uint64, bool) {
	digits, ok := strings.CutPrefix(id, idPrefix)
	if !ok || digits == "" || digits[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}
