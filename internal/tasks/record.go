package tasks

import (
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/proto"
)

// State is a task's lifecycle state.
type State string

// The task states. Cancelled, Failed and Completed are terminal.
const (
	Running    State = "running"
	Cancelling State = "cancelling"
	Cancelled  State = "cancelled"
	Failed     State = "failed"
	Completed  State = "completed"
)

// Terminal reports whether s is a final state.
func (s State) Terminal() bool {
	return s == Cancelled || s == Failed || s == Completed
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
}

// Channel is the event channel of the task ("task.N").
func (r Record) Channel() string { return "task." + strings.TrimPrefix(r.Task, idPrefix) }

// MarshalJSON renders the record in its wire shape (see AppendJSON).
func (r Record) MarshalJSON() ([]byte, error) { return r.AppendJSON(make([]byte, 0, 160)), nil }

// AppendJSON appends the record's wire shape to b: task, session, state,
// started_ns, then finished_ns, result_ref and error, each null when
// absent (error is the message text), then suspended, timed_out and
// foreground, each only when true. It is written by hand because every
// change of every task (a synchronous exec is one) is published as an
// event.
func (r Record) AppendJSON(b []byte) []byte {
	b = append(b, `{"task":`...)
	b = proto.AppendString(b, r.Task)
	b = append(b, `,"session":`...)
	b = proto.AppendString(b, r.Session)
	b = append(b, `,"state":`...)
	b = proto.AppendString(b, string(r.State))
	b = append(b, `,"started_ns":`...)
	b = strconv.AppendInt(b, r.StartedNs, 10)
	b = append(b, `,"finished_ns":`...)
	if r.FinishedNs != 0 {
		b = strconv.AppendInt(b, r.FinishedNs, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"result_ref":`...)
	if r.ResultRef != "" {
		b = proto.AppendString(b, r.ResultRef)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"error":`...)
	if r.Err != nil {
		b = proto.AppendString(b, r.Err.Error())
	} else {
		b = append(b, "null"...)
	}
	if r.Suspended {
		b = append(b, `,"suspended":true`...)
	}
	if r.TimedOut {
		b = append(b, `,"timed_out":true`...)
	}
	if r.Foreground {
		b = append(b, `,"foreground":true`...)
	}
	return append(b, '}')
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
