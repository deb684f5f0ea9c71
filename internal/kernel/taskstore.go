package kernel

import (
	"errors"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/internal/tasks"
)

// Task records across a restart (docs/kernel.md, "Restart"). A kernel
// with a state directory writes a row to its journal database when a
// retained task starts and each time its record changes (a foreground
// task, a synchronous exec, is not retained and writes none): the row is
// written before the exec's answer names the task. A kernel starting on
// the same directory marks the rows left running interrupted, adopts
// their output spools (outspool_restart.go), and gives each session its
// rows back when it is next attached, numbering its new tasks above them.
// The rows are bounded per principal (Limits.PrincipalTaskRecords) and in
// all (Limits.TaskRecords): past either the oldest ended rows go, with
// their spools. A session closed for idleness forgets its rows.

// initTaskRecords marks the tasks an earlier kernel left running
// interrupted and adopts their spools; it runs once as the kernel starts.
func (s *Server) initTaskRecords() {
	if s.journal == nil || s.outputs == nil {
		return
	}
	db := s.journal.db
	if n, err := db.InterruptTasks(); err != nil {
		s.log.Warn("task records: cannot mark interrupted tasks", "err", err)
	} else if n > 0 {
		s.log.Info("tasks interrupted by the last stop", "count", n)
	}
	rows, err := db.Tasks()
	if err != nil {
		s.log.Warn("task records unreadable: their output is not adopted", "err", err)
		return
	}
	s.outputs.adopt(rows)
}

// persistTask writes sess's task record rec (the OnChange hook).
func (s *Server) persistTask(sess *session, rec tasks.Record) {
	if s.journal == nil || rec.Foreground {
		return
	}
	seq, ok := taskSeq(rec.Task)
	if !ok {
		return
	}
	row := journal.TaskRow{Principal: sess.key.principal, Session: sess.key.name, Seq: seq, State: string(rec.State),
		StartedNs: rec.StartedNs, FinishedNs: rec.FinishedNs, ResultRef: rec.ResultRef, Language: rec.Language,
		Desc: rec.Desc, OutBytes: -1}
	if rec.Err != nil {
		row.Error = rec.Err.Error()
	}
	if s.ctx.Err() != nil && (rec.State == tasks.Cancelling || rec.State == tasks.Cancelled) {
		// Ended by the kernel's own stop: interrupted, as after a kill.
		row.State, row.Error = string(tasks.Interrupted), tasks.ErrInterrupted.Error()
	}
	if rec.State.Terminal() && s.outputs != nil {
		if n, ok := s.outputs.spoolTotal(outputKey{principal: row.Principal, session: row.Session, task: rec.Task}); ok {
			row.OutBytes = n
		} else {
			row.OutBytes = 0
		}
	}
	if err := s.journal.db.SaveTask(row); err != nil {
		s.log.Warn("task record not persisted", "task", rec.Task, "err", err)
		return
	}
	if !rec.State.Terminal() {
		return
	}
	gone, err := s.journal.db.TrimTasks(row.Principal, s.limits.PrincipalTaskRecords, s.limits.TaskRecords)
	if err != nil {
		s.log.Warn("task records not trimmed", "err", err)
	}
	for _, g := range gone {
		if s.outputs != nil {
			s.outputs.forgetKey(outputKey{principal: g.Principal, session: g.Session, task: "task:" + strconv.FormatInt(g.Seq, 10)})
		}
	}
}

// restoreTasks gives a new session the task records an earlier kernel
// kept for its (principal, name).
func (s *Server) restoreTasks(sess *session) {
	if s.journal == nil {
		return
	}
	rows, err := s.journal.db.SessionTasks(sess.key.principal, sess.key.name)
	if err != nil {
		s.log.Warn("task records of a session unreadable", "session", sess.key.name, "err", err)
		return
	}
	if len(rows) == 0 {
		return
	}
	recs := make([]tasks.Record, 0, len(rows))
	var floor uint64
	for _, r := range rows {
		floor = max(floor, uint64(r.Seq))
		rec := tasks.Record{Task: "task:" + strconv.FormatInt(r.Seq, 10), Session: r.Session, State: tasks.State(r.State),
			StartedNs: r.StartedNs, FinishedNs: r.FinishedNs, ResultRef: r.ResultRef, Language: r.Language, Desc: r.Desc}
		if r.Error != "" {
			rec.Err = errors.New(r.Error)
		}
		recs = append(recs, rec)
	}
	sess.tasks.Restore(sess.owner(), recs, floor)
}

// forgetTaskRecords deletes the rows of a session closed for idleness.
func (s *Server) forgetTaskRecords(sess *session) {
	if s.journal == nil {
		return
	}
	if err := s.journal.db.ForgetSessionTasks(sess.key.principal, sess.key.name); err != nil {
		s.log.Warn("task records of a closed session kept", "session", sess.key.name, "err", err)
	}
}

// taskSeq reads the N of "task:N".
func taskSeq(id string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimPrefix(id, "task:"), 10, 64)
	return n, err == nil && n > 0 && strings.HasPrefix(id, "task:")
}
