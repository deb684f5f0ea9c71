package main

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/value"
)

// maxRemoteJobs bounds the background jobs a --kernel REPL watches for
// their end; past it the oldest is no longer watched (the kernel's
// task.list still has it).
const maxRemoteJobs = 64

// remoteJobCheck bounds the task.get and task.output calls made before
// one prompt.
const remoteJobCheck = 2 * time.Second

// remoteJobKeep is the most of a job's output shown before one prompt,
// as the local REPL keeps (the newest bytes; a line counts the rest as
// dropped). remoteJobRead is the most read of the kernel per job and
// prompt (task.output's own largest read); what is beyond it is shown
// before the next prompt.
const (
	remoteJobKeep = 256 << 10
	remoteJobRead = 1 << 20
)

// remoteJob is a job started at the --kernel prompt (`cmd &`), watched
// until its end is reported.
type remoteJob struct {
	task   string // the kernel's id, "task:N"
	desc   string // the command as typed, without its &
	offset int64  // the output shown so far (task.output's offset)
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

// JobReports implements repl.JobReporter for a kernel session: what each
// job started at this prompt printed since the last prompt (task.output),
// and the jobs that have ended since (task.get); both are reads, which
// the journal does not record.
func (r *remoteSession) JobReports() []eval.JobReport {
	if r.c == nil || len(r.jobs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), remoteJobCheck)
	defer cancel()
	var out []eval.JobReport
	kept := r.jobs[:0]
	for _, j := range r.jobs {
		id, _ := strconv.Atoi(strings.TrimPrefix(j.task, "task:"))
		rec, err := r.c.TaskGet(ctx, j.task)
		if err != nil {
			kept = append(kept, j) // asked again before the next prompt
			continue
		}
		// The record first: output read after it includes all a job
		// that has ended printed.
		state, ended := remoteJobState(rec.State)
		rep := eval.JobReport{ID: id, Desc: j.desc}
		more := r.jobOutput(ctx, &j, &rep)
		if ended && !more {
			rep.Ended, rep.State = true, state
		} else {
			kept = append(kept, j)
		}
		if rep.Ended || len(rep.Output) > 0 || rep.Dropped > 0 {
			out = append(out, rep)
		}
	}
	r.jobs = kept
	return out
}

// jobOutput adds to rep what j printed since it was last shown, at most
// remoteJobKeep bytes (the newest; older ones and those the kernel no
// longer keeps are counted in rep.Dropped), and moves j past it. It
// reports whether the job has more to show than one read took.
func (r *remoteSession) jobOutput(ctx context.Context, j *remoteJob, rep *eval.JobReport) bool {
	ch, err := r.c.TaskOutput(ctx, j.task, j.offset, remoteJobRead)
	if err != nil {
		return false // the end is still reported; the output is the kernel's
	}
	data, err := client.ChunkBytes(ch)
	if err != nil {
		return false
	}
	rep.Dropped += max(ch.Offset-j.offset, 0) // no longer kept by the kernel
	if len(data) > remoteJobKeep {
		rep.Dropped += int64(len(data) - remoteJobKeep)
		data = data[len(data)-remoteJobKeep:]
	}
	rep.Output = data
	j.offset = ch.Next
	return !ch.EOF && ch.Next-ch.Offset == remoteJobRead
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
