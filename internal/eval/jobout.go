package eval

// Job output and reports for the interactive REPL (Options.KeepJobOutput):
// a job started with `&` writes its statement output into a bounded buffer
// of its own rather than to the terminal the person is typing on; the
// REPL takes what accumulated before each prompt (JobReports), with a
// line for each job that has ended since, and a reported job leaves the
// table `jobs` lists. `fg` sends a job's output to the terminal while it
// waits for it.

import (
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// jobOutput is a job's kept output: bytes not yet shown, at most
// MaxJobOutput (the oldest dropped first, counted), or, while `fg` waits
// for the job, written straight to the foreground's writer.
type jobOutput struct {
	mu      sync.Mutex
	buf     []byte
	dropped int64
	live    io.Writer // the foreground's writer while fg waits; nil: keep
}

func (j *jobOutput) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.live != nil {
		_, _ = j.live.Write(p)
		return len(p), nil
	}
	n := len(p)
	if n >= MaxJobOutput {
		j.dropped += int64(len(j.buf) + n - MaxJobOutput)
		j.buf = append(j.buf[:0], p[n-MaxJobOutput:]...)
		return n, nil
	}
	if over := len(j.buf) + n - MaxJobOutput; over > 0 {
		j.dropped += int64(over)
		j.buf = append(j.buf[:0], j.buf[over:]...)
	}
	j.buf = append(j.buf, p...)
	return n, nil
}

// take returns and forgets what is kept.
func (j *jobOutput) take() ([]byte, int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	b, d := j.buf, j.dropped
	j.buf, j.dropped = nil, 0
	return b, d
}

// attach writes what is kept to w and sends later output there until
// detach.
func (j *jobOutput) attach(w io.Writer) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.buf) > 0 {
		_, _ = w.Write(j.buf)
	}
	j.buf, j.dropped = nil, 0
	j.live = w
}

func (j *jobOutput) detach() {
	j.mu.Lock()
	j.live = nil
	j.mu.Unlock()
}

func (tk *Task) setForeground(on bool) {
	tk.mu.Lock()
	tk.foreground = on
	tk.mu.Unlock()
}

// JobReport is what the REPL shows before a prompt about one job: the
// output it wrote since the last report (Dropped bytes of it lost to the
// bound) and, once it has ended, how (State: done, failed or cancelled).
type JobReport struct {
	ID      int
	Desc    string
	Output  []byte
	Dropped int64
	// Ended reports that the job has finished; it has then left `jobs`.
	// State is how: done, failed, cancelled, or `exit N` for a command
	// that exited with status N.
	Ended bool
	State string
}

// JobReports returns, oldest job first, the output each job kept since
// the last call and a report for each job that has ended since; a job
// reported as ended (or brought to an end by fg) leaves the job table.
// Only a session with Options.KeepJobOutput keeps output or retires jobs.
func (in *Interp) JobReports() []JobReport {
	if !in.opts.KeepJobOutput {
		return nil
	}
	tt := &in.tasks
	var out []JobReport
	var retire []*Task
	for _, tk := range tt.list() {
		if !tk.job {
			continue
		}
		r := JobReport{ID: tk.JobNumber(), Desc: tk.desc}
		if tk.out != nil {
			r.Output, r.Dropped = tk.out.take()
		}
		if tk.isDone() {
			retire = append(retire, tk)
			tk.mu.Lock()
			quiet := tk.foreground
			tk.mu.Unlock()
			if !quiet {
				r.Ended, r.State = true, tk.jobState()
				if v, _ := tk.result(); r.State == "failed" {
					if o, ok := v.(*value.Outcome); ok && o.Status != nil {
						r.State = "exit " + itoa(*o.Status)
					}
				}
			}
		}
		if r.Ended || len(r.Output) > 0 || r.Dropped > 0 {
			out = append(out, r)
		}
	}
	if len(retire) > 0 {
		tt.mu.Lock()
		tt.all = slices.DeleteFunc(tt.all, func(tk *Task) bool { return slices.Contains(retire, tk) })
		tt.mu.Unlock()
	}
	return out
}

// jobState is the one state `jobs` shows: running, stopped, cancelling,
// done, failed (an error, or a command that exited non-zero) or
// cancelled.
func (tk *Task) jobState() string {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	switch {
	case !tk.finished && tk.cancelled:
		return "cancelling"
	case !tk.finished && tk.suspended:
		return "stopped"
	case !tk.finished:
		return "running"
	case tk.cancelled:
		return "cancelled"
	case tk.err != nil:
		return "failed"
	}
	if o, ok := tk.val.(*value.Outcome); ok && !o.Ok() {
		return "failed"
	}
	return "done"
}

// maxJobDesc bounds a job's description.
const maxJobDesc = 200

// typedDesc is the text of span in the program t runs, as typed, when
// t knows it and it starts with prefix (a function body's spans are in
// another text): whitespace runs become one space, line breaks "; ", at
// most maxJobDesc bytes. ok is false when the text is not known.
func (t *thread) typedDesc(sp syntax.Span, prefix string) (string, bool) {
	start, end := int(sp.Start), int(sp.End)
	if t.src == "" || t.fnDepth > 0 || start < 0 || end > len(t.src) || start >= end {
		return "", false
	}
	s := strings.TrimSpace(t.src[start:end])
	if !strings.HasPrefix(s, prefix) {
		return "", false
	}
	return oneLine(s), true
}

// oneLine folds text onto one line for a job table: line breaks become
// "; " (unless a brace or a `;` already ends the line), other whitespace
// runs one space; at most maxJobDesc bytes.
func oneLine(s string) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if i > 0 && b.Len() > 0 {
			prev := b.String()
			switch {
			case strings.HasSuffix(prev, "{"), strings.HasSuffix(prev, ";"), strings.HasPrefix(line, "}"):
				b.WriteByte(' ')
			default:
				b.WriteString("; ")
			}
		}
		b.WriteString(line)
		if b.Len() > maxJobDesc {
			break
		}
	}
	out := b.String()
	if len(out) > maxJobDesc {
		out = strings.ToValidUTF8(out[:maxJobDesc], "")
	}
	return out
}
