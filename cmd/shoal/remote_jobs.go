package main

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/value"
)

// maxRemoteJobs bounds the background jobs a --kernel REPL watches for
// their end; past it the oldest is no longer watched (the kernel's
// task.list still has it).
const maxRemoteJobs = 64

// remoteJobCheck bounds the task.get calls made before one prompt.
const remoteJobCheck = 2 * time.Second

// remoteJob is a job started at the --kernel prompt (`cmd &`), watched
// until its end is reported.
type remoteJob struct {
	task string // the kernel's id, "task:N"
	desc string // the command as typed, without its &
}

// noteJob watches the task a statement ending in & started.
func (r *remoteSession) noteJob(src string, v value.Value) {
	h, ok := v.(*value.Handle)
	if !ok || h.K != value.KTask {
		return
	}
	desc, ok := strings.CutSuffix(strings.TrimSpace(src), "&")
	if !ok {
		return
	}
	if len(r.jobs) == maxRemoteJobs {
		r.jobs = r.jobs[1:]
	}
	r.jobs = append(r.jobs, remoteJob{task: h.Repr, desc: strings.TrimSpace(desc)})
}

// JobReports implements repl.JobReporter for a kernel session: the jobs
// started at this prompt that have ended since the last prompt, asked of
// the kernel with task.get (a read, which the journal does not record).
// Their output is the kernel's (task.output), not shown here.
func (r *remoteSession) JobReports() []eval.JobReport {
	if r.c == nil || len(r.jobs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), remoteJobCheck)
	defer cancel()
	var out []eval.JobReport
	kept := r.jobs[:0]
	for _, j := range r.jobs {
		rec, err := r.c.TaskGet(ctx, j.task)
		if err != nil {
			kept = append(kept, j) // asked again before the next prompt
			continue
		}
		state, ended := remoteJobState(rec.State)
		if !ended {
			kept = append(kept, j)
			continue
		}
		id, _ := strconv.Atoi(strings.TrimPrefix(j.task, "task:"))
		out = append(out, eval.JobReport{ID: id, Desc: j.desc, Ended: true, State: state})
	}
	r.jobs = kept
	return out
}

// remoteJobState maps a kernel task state to the word a job's end report
// shows, and whether the task has ended.
func remoteJobState(s string) (string, bool) {
	switch s {
	case "completed":
		return "done", true
	case "failed", "cancelled", "interrupted":
		return s, true
	}
	return "", false
}
