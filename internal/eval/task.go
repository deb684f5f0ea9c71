package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Task is the handle of a background computation: `spawn { … }`,
// `cmd &`, `{ … } &`, an `on` handler. It runs on its own goroutine, on a
// thread forked from the one that started it (see fork), and takes the
// session lock like any evaluation (see sched.go).
type Task struct {
	ID     int
	wireID string // the embedder's id for the task (TaskHook), "" for none
	// awaited: the evaluation that started the task waits for it (a
	// parallel branch); see Awaited.
	awaited bool
	parent  *Task // the task that started this one, nil from top level
	desc    string
	in      *Interp
	done    chan struct{} // closed when the task has finished
	pause   Pause         // holds the task's evaluation while suspended

	cancel context.CancelCauseFunc

	mu        sync.Mutex
	val       value.Value
	err       error
	finished  bool
	cancelled bool // cancel was asked for
	suspended bool
	groups    map[*groupRef]struct{} // process groups running now, for suspend
	term      *host.TerminalJob      // a command stopped on the terminal (jobterm.go)
	fgStop    chan struct{}          // closed when a foregrounded term job stops again

	// job: started with `&` or stopped on the terminal, a job the REPL
	// reports (jobout.go); out keeps its output (Options.KeepJobOutput);
	// foreground: fg waited for its end, so no report is due.
	job        bool
	out        *jobOutput
	foreground bool
	// sink: the embedder's writers for the task's output (SetOutput).
	sink *taskWriters
}

type groupRef struct{ pg host.ProcessGroup }

// errTaskCancelled is the cause a task's context ends with on cancel.
var errTaskCancelled = errors.New("task cancelled")

// Kind implements value.Value.
func (*Task) Kind() value.Kind { return value.KTask }

// InlineString implements value.Inliner.
func (tk *Task) InlineString() string { return "<task " + itoa(tk.ID) + ">" }

// WireTask implements value.WireTask: the id and whether it finished.
// When a TaskHook gave the task an id (the kernel's "task:N") that id is
// used, so a client can pass it to the kernel's task methods.
func (tk *Task) WireTask() (string, bool) {
	if tk.wireID != "" {
		return tk.wireID, tk.isDone()
	}
	return "task:" + itoa(tk.ID), tk.isDone()
}

// TaskHook is told of the language tasks a session starts (Options.Tasks).
// Started is called before the task's body runs, with its handle (Desc,
// Cancel, Done, Result work from then on); an error refuses the task and
// is raised where it was started (a *budget.ExceededError becomes
// quota_exceeded). Otherwise Started returns the embedder's id for the
// task ("" to keep the session's numbering on the wire) and a function
// called once, after the task has finished and Done is closed.
//
// ctx is the context of the evaluation starting the task (carrying the
// embedder's values for a top-level one; a task's own for a task started
// by a task, see Parent).
type TaskHook interface {
	Started(ctx context.Context, tk *Task) (id string, ended func(), err error)
}

// Parent is the task whose evaluation started tk, nil for one started by
// a top-level evaluation.
func (tk *Task) Parent() *Task { return tk.parent }

// Desc describes the task as `jobs` shows it ("spawn", the command line
// of `cmd &`, "on CHANNEL", "parallel branch").
func (tk *Task) Desc() string { return tk.desc }

// Awaited reports whether the evaluation that started the task waits for
// it to end (a parallel branch) rather than holding a handle to it: an
// embedder need not remember such a task once it has ended.
func (tk *Task) Awaited() bool { return tk.awaited }

// Done is closed once the task has finished.
func (tk *Task) Done() <-chan struct{} { return tk.done }

// Result is the finished task's value, or the error awaiting it raises
// (task_cancelled for a cancelled task); both nil before it finishes.
func (tk *Task) Result() (value.Value, error) {
	if !tk.isDone() {
		return nil, nil
	}
	if err := tk.awaitError(); err != nil {
		return nil, err
	}
	v, _ := tk.result()
	return v, nil
}

func (tk *Task) isDone() bool {
	select {
	case <-tk.done:
		return true
	default:
		return false
	}
}

// result is the task's outcome once done.
func (tk *Task) result() (value.Value, error) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	return tk.val, tk.err
}

// state is the job-table state: running, stopped (suspended) or done.
func (tk *Task) state() string {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	switch {
	case tk.finished:
		return "done"
	case tk.suspended:
		return "stopped"
	}
	return "running"
}

// status is the kernel's task state: running, cancelling (cancel asked,
// not yet ended), completed, failed or cancelled.
func (tk *Task) status() string {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	switch {
	case !tk.finished && tk.cancelled:
		return "cancelling"
	case !tk.finished:
		return "running"
	case tk.err == nil:
		return "completed"
	case tk.cancelled:
		return "cancelled"
	}
	return "failed"
}

// Cancel asks the task to stop: its context ends, which kills every
// process it runs (their whole trees) and raises cancelled at its next
// checkpoint or wait.
func (tk *Task) Cancel() {
	tk.mu.Lock()
	if !tk.finished {
		tk.cancelled = true
	}
	tk.mu.Unlock()
	tk.cancel(errTaskCancelled)
	_ = tk.pause.Resume()
}

// Suspend holds the task at its next checkpoint and stops the processes it
// runs (SIGSTOP); Resume undoes it.
func (tk *Task) Suspend() {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.finished || tk.suspended {
		return
	}
	tk.suspended = true
	_ = tk.pause.Suspend()
	for g := range tk.groups {
		_ = g.pg.Suspend()
	}
}

// Resume lets a suspended task go on.
func (tk *Task) Resume() {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if !tk.suspended {
		return
	}
	tk.suspended = false
	for g := range tk.groups {
		_ = g.pg.Resume()
	}
	_ = tk.pause.Resume()
}

// groupHook makes each process group the task starts suspendable while it
// lives; a group started while the task is suspended is stopped at once.
func (tk *Task) groupHook(_ context.Context, pg host.ProcessGroup) func() {
	g := &groupRef{pg}
	tk.mu.Lock()
	if tk.groups == nil {
		tk.groups = map[*groupRef]struct{}{}
	}
	tk.groups[g] = struct{}{}
	if tk.suspended {
		_ = pg.Suspend()
	}
	tk.mu.Unlock()
	return func() {
		tk.mu.Lock()
		delete(tk.groups, g)
		tk.mu.Unlock()
	}
}

// tasks is a session's table of language tasks, under its own mutex: it is
// read by `jobs` and written when tasks start and finish, which may happen
// without the session lock.
type taskTable struct {
	mu   sync.Mutex
	seq  int
	live int
	all  []*Task // oldest first, at most MaxTaskRecords
	wg   sync.WaitGroup
}

// add registers a new task, refusing one past MaxLiveTasks.
func (tt *taskTable) add(tk *Task) error {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.live >= MaxLiveTasks {
		return &budget.ExceededError{Name: BudgetSessionTasks, Limit: MaxLiveTasks,
			Reason: "this session already runs " + itoa(MaxLiveTasks) + " language tasks"}
	}
	tt.live++
	tt.seq++
	tk.ID = tt.seq
	if len(tt.all) >= MaxTaskRecords {
		for i, old := range tt.all {
			if old.isDone() {
				tt.all = append(tt.all[:i], tt.all[i+1:]...)
				break
			}
		}
	}
	tt.all = append(tt.all, tk)
	tt.wg.Add(1)
	return nil
}

// drop undoes add for a task that never ran (its TaskHook refused it).
func (tt *taskTable) drop(tk *Task) {
	tt.mu.Lock()
	tt.live--
	if i := slices.Index(tt.all, tk); i >= 0 {
		tt.all = slices.Delete(tt.all, i, i+1)
	}
	tt.mu.Unlock()
	tt.wg.Done()
}

func (tt *taskTable) finished() {
	tt.mu.Lock()
	tt.live--
	tt.mu.Unlock()
	tt.wg.Done()
}

func (tt *taskTable) list() []*Task {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return append([]*Task(nil), tt.all...)
}

// fork derives the thread a background task runs on: a copy of t's
// dynamic context (working directory, environment, function nesting) with
// the same host gate (principal and authoriser), the session's memory
// budget, and a context whose cancellation parent is the session's life,
// not the evaluation that started it, so a task outlives its exec. It has
// its own strand (it runs on its own goroutine) and discards statement
// output: its result is its value.
func (t *thread) fork(ctx context.Context, tk *Task) *thread {
	c := newThread(t.in, ctx, &strand{})
	c.dir, c.env, c.oldpwd, c.dirStack = t.dir, t.env, t.oldpwd, t.dirStack
	c.fnDepth = t.fnDepth
	c.root = t.root
	c.task = tk
	c.pause = &tk.pause
	c.stdout, c.stderr = io.Discard, io.Discard
	if tk.out != nil {
		c.stdout, c.stderr = tk.out, tk.out
	}
	so, se := tk.sinkWriters()
	c.stdout, c.stderr = withSink(c.stdout, so), withSink(c.stderr, se)
	return c
}

// startTask runs body as a new task of the session, on a thread forked
// from t, and returns its handle at once.
func (t *thread) startTask(desc string, body func(c *thread) (value.Value, error)) (*Task, error) {
	return t.startTaskAs(&Task{desc: desc}, body)
}

// startJob is startTask for a job (`&`, a command stopped on the
// terminal): the REPL reports it, and keeps its output when the session
// asks (keep, with Options.KeepJobOutput).
func (t *thread) startJob(desc string, keep bool, body func(c *thread) (value.Value, error)) (*Task, error) {
	tk := &Task{desc: desc, job: true}
	if keep && t.in.opts.KeepJobOutput {
		tk.out = &jobOutput{}
	}
	return t.startTaskAs(tk, body)
}

// startTaskAs is startTask for tk, whose desc, awaited (a task its
// starter waits for, a parallel branch, see Task.Awaited) and job fields
// are set.
func (t *thread) startTaskAs(tk *Task, body func(c *thread) (value.Value, error)) (*Task, error) {
	in := t.in
	tk.in, tk.parent, tk.done = in, t.task, make(chan struct{})
	if err := in.tasks.add(tk); err != nil {
		return nil, taskRefusal(err)
	}
	ctx, cancel := context.WithCancelCause(in.life)
	tk.cancel = cancel
	ended := func() {}
	if h := in.opts.Tasks; h != nil {
		id, fin, err := h.Started(t.ctx, tk)
		if err != nil {
			cancel(nil)
			in.tasks.drop(tk)
			return nil, taskRefusal(err)
		}
		tk.wireID = id
		if fin != nil {
			ended = fin
		}
	}
	ctx, run := in.begin(ctx)
	ctx = host.WithGroupHook(ctx, tk.groupHook)
	c := t.fork(ctx, tk)
	go func() {
		var v value.Value
		var err error
		defer func() {
			in.letGo(c.st)
			run.done()
			cancel(nil)
			close(tk.done)
			in.tasks.finished()
			ended()
		}()
		defer func() {
			if r := recover(); r != nil {
				err = errorf(value.CodeInternal, "task %d panicked: %v", tk.JobNumber(), r)
			}
			tk.finish(ctx, v, err)
		}()
		if err = in.hold(ctx, c.st); err != nil {
			err = hostError(err)
			return
		}
		v, err = body(c)
	}()
	return tk, nil
}

// taskRefusal is the language error of a task start refused by a bound:
// quota_exceeded naming the budget, for every task bound (the session's,
// and the embedder's through TaskHook).
func taskRefusal(err error) error {
	if errors.As(err, new(*budget.ExceededError)) {
		return errorf(budget.CodeQuotaExceeded, "%s", err.Error()).
			WithHint("await or cancel a task first; `jobs` lists the session's tasks")
	}
	return langError(err)
}

// finish records the task's result. A task whose context ended (cancel,
// or the session closing) and that failed was cancelled.
func (tk *Task) finish(ctx context.Context, v value.Value, err error) {
	if err != nil {
		if f, ok := err.(*flow); ok && (f.kind == flowReturn || f.kind == flowExit) {
			v, err = f.val, nil
		} else {
			err = langError(err)
		}
	}
	if v == nil && err == nil {
		v = value.Nil
	}
	tk.mu.Lock()
	tk.val, tk.err, tk.finished, tk.suspended = v, err, true, false
	if err != nil && ctx.Err() != nil {
		tk.cancelled = true
	}
	if err == nil {
		tk.cancelled = false
	}
	tk.mu.Unlock()
}

// awaitError is what awaiting a failed task raises: its own error, except
// that a cancelled task's cancellation becomes task_cancelled, which the
// awaiter may catch (its own evaluation was not cancelled).
func (tk *Task) awaitError() error {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.err == nil {
		return nil
	}
	if e, ok := tk.err.(*value.Error); ok && e.Code == value.CodeCancelled {
		return errorf(value.CodeTaskCancelled, "task %d was cancelled", tk.JobNumber()).
			WithHint("its status is cancelled; catch task_cancelled to go on")
	}
	return tk.err
}

// await waits for tk without the session lock and returns its result.
func (t *thread) await(tk *Task) (value.Value, error) {
	if t.task == tk {
		return nil, errorf(codeArg, "task %d cannot await itself", tk.JobNumber())
	}
	var werr error
	t.unlocked(func() {
		select {
		case <-tk.done:
		case <-t.ctx.Done():
			werr = hostError(t.ctx.Err())
		}
	})
	if werr != nil {
		return nil, werr
	}
	if err := tk.awaitError(); err != nil {
		return nil, err
	}
	v, _ := tk.result()
	return v, nil
}

func (t *thread) evalSpawn(n *syntax.Spawn, sc *scope) (value.Value, error) {
	var tk *Task
	var err error
	if text, ok := t.typedDesc(n.Span, "{"); ok && strings.HasSuffix(text, "&") {
		// `{ … } &`: a job, described by the block's text.
		desc := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(text, "&")), "}"))
		desc = strings.TrimSpace(strings.TrimPrefix(desc, "{"))
		tk, err = t.startJob(desc, true, func(c *thread) (value.Value, error) {
			if c.task.out == nil {
				return c.evalBlock(n.Body, sc, c.task.bodyMode())
			}
			v, err := c.evalBlock(n.Body, sc, mStream)
			c.emitJobValue(v, err)
			return v, err
		})
	} else {
		tk, err = t.startTask("spawn", func(c *thread) (value.Value, error) {
			return c.evalBlock(n.Body, sc, c.task.bodyMode())
		})
	}
	if err != nil {
		return nil, withSpan(err, n.Span)
	}
	return tk, nil
}

func (t *thread) runBackground(call *syntax.CmdCall, sc *scope) (value.Value, error) {
	bg := *call
	bg.Background = false
	desc := cmdDesc(call)
	if text, ok := t.typedDesc(call.Span, ""); ok && (strings.HasPrefix(text, call.Head.Text) || strings.HasPrefix(text, "^"+call.Head.Text)) {
		desc = strings.TrimSpace(strings.TrimSuffix(text, "&"))
	}
	tk, err := t.startJob(desc, true, func(c *thread) (value.Value, error) {
		if !c.task.streams() {
			return c.runCmd(&bg, sc, modeValue, nil)
		}
		// Its output streams into the job's kept output or the
		// embedder's writers (and is still captured); what it answers
		// follows, as the REPL would show it.
		v, err := c.runCmd(&bg, sc, mStream, nil)
		c.emitJobValue(v, err)
		return v, err
	})
	if err != nil {
		return nil, withSpan(err, call.Span)
	}
	return tk, nil
}

// emitJobValue shows what a job's last statement answered in its output
// (an external command's output has streamed there already) and its
// error, as the REPL would show them.
func (c *thread) emitJobValue(v value.Value, err error) {
	if err != nil {
		if e, ok := err.(*value.Error); ok && c.ctx.Err() == nil {
			fmt.Fprintf(c.stderr, "error[%s]: %s\n", e.Code, e.Msg)
		}
		return
	}
	if o, ok := v.(*value.Outcome); ok && !o.Builtin {
		return
	}
	c.emit(v)
}

// cmdDesc describes a background command for the job table: its head and
// arguments as written, at most 200 bytes.
func cmdDesc(call *syntax.CmdCall) string {
	s := call.Head.Text
	for _, a := range call.Args {
		if a != nil && a.Text != "" {
			s += " " + a.Text
		}
		if len(s) > 200 {
			return s[:200]
		}
	}
	return s
}

// taskField reads a task's fields: id, desc, state (running, stopped or
// done), done, suspended, status (running, cancelling, completed, failed,
// cancelled).
func taskField(tk *Task, name string) (value.Value, bool) {
	switch name {
	case "id":
		return value.Int(tk.JobNumber()), true
	case "desc":
		return value.Str(tk.desc), true
	case "state":
		return value.Str(tk.state()), true
	case "done":
		return value.Bool(tk.isDone()), true
	case "suspended":
		return value.Bool(tk.state() == "stopped"), true
	case "status":
		return value.Str(tk.status()), true
	}
	return nil, false
}

// jobRow is a task's row in `jobs`.
// JobNumber is the task's number in `jobs`, `%N` and the REPL's job
// lines: the embedder's number when a TaskHook gave it one (the kernel's
// "task:N", so a --kernel prompt, `jobs` and the kernel's task methods
// agree), else the session's own count.
func (tk *Task) JobNumber() int {
	if n, err := strconv.Atoi(strings.TrimPrefix(tk.wireID, "task:")); err == nil && tk.wireID != "" {
		return n
	}
	return tk.ID
}

func jobRow(tk *Task) value.Value {
	return value.NewRecord(
		[]string{"id", "state", "command"},
		[]value.Value{value.Int(tk.JobNumber()), value.Str(tk.jobState()), value.Str(tk.desc)},
	)
}

func runJobs(c *BuiltinCall) (value.Value, error) {
	all := c.t.in.tasks.list()
	rows := make([]value.Value, len(all))
	for i, tk := range all {
		rows[i] = jobRow(tk)
	}
	return value.NewList(rows), nil
}

func registerTask1(p *Part) {
	wait := func(c *MethodCall, recv value.Value, args value.Args) (value.Value, error) {
		return c.t.await(recv.(*Task))
	}
	// A task's methods act on the task (its processes are its own
	// effects, counted where its block is written).
	task := func(name, summary, example string, call HostMethod) {
		p.Method(&Method{Kind: value.KTask, Name: name, Call: call, Effects: EffNone,
			Help: Help{Summary: summary, Usage: "TASK." + name + "()", Example: example}})
	}
	task("await", "wait for the task and return its value (its error is raised)", "(spawn { 42 }).await()", wait)
	task("wait", "the same as .await()", "(spawn { 42 }).wait()", wait)
	task("is_done", "whether the task has finished", "(spawn { 42 }).is_done()", func(_ *MethodCall, recv value.Value, _ value.Args) (value.Value, error) {
		return value.Bool(recv.(*Task).isDone()), nil
	})
	task("is_suspended", "whether the task is suspended", "(spawn { 42 }).is_suspended()", func(_ *MethodCall, recv value.Value, _ value.Args) (value.Value, error) {
		return value.Bool(recv.(*Task).state() == "stopped"), nil
	})
	task("cancel", "cancel the task with its processes", "(spawn { sleep 10s }).cancel()", func(_ *MethodCall, recv value.Value, _ value.Args) (value.Value, error) {
		recv.(*Task).Cancel()
		return value.Nil, nil
	})
	task("suspend", "stop the task's processes until resumed", "let t = spawn { sleep 1s }\nt.suspend()\nt.resume()", func(_ *MethodCall, recv value.Value, _ value.Args) (value.Value, error) {
		recv.(*Task).Suspend()
		return value.Nil, nil
	})
	task("resume", "let a suspended task run on", "let t = spawn { sleep 1s }\nt.suspend()\nt.resume()", func(_ *MethodCall, recv value.Value, _ value.Args) (value.Value, error) {
		recv.(*Task).Resume()
		return value.Nil, nil
	})
}

func registerTask2(p *Part) {
	p.Builtin(&Builtin{Name: "wait", Help: Help{Summary: "wait for a task (or every task) and return its value", Usage: "wait [TASK | %N]", Example: "let t = spawn { sleep 1s; 42 }\nwait (t)"}, Run: runWait, Bare: true, Quiet: true, Effects: EffNone})
	p.Builtin(&Builtin{Name: "kill", Help: Help{Summary: "cancel a task with its processes (%N), else run the kill program", Usage: "kill %N | kill TASK | kill [ARG...]", Example: "sleep 30s &\nkill %1"}, Run: runKill, Bare: true, Quiet: true, Verbatim: true, Effects: effKill})
	p.Builtin(&Builtin{Name: "fg", Help: Help{Summary: "give a job the terminal again and wait for it", Usage: "fg [%N]", Example: "sleep 1s &\nfg %1"}, Run: runFg, Bare: true, Effects: EffNone})
	p.Builtin(&Builtin{Name: "bg", Help: Help{Summary: "let a stopped job run on in the background", Usage: "bg [%N]", Example: "bg %1"}, Run: runBg, Bare: true, Quiet: true, Effects: EffNone})
}

// jobArg resolves the one optional job argument of fg and bg: a task, %N,
// or (none) the newest task not done.
func jobArg(c *BuiltinCall) (*Task, error) {
	tt := &c.t.in.tasks
	switch len(c.Args) {
	case 0:
		all := tt.list()
		for i := len(all) - 1; i >= 0; i-- {
			if !all[i].isDone() && all[i] != c.t.task {
				return all[i], nil
			}
		}
		return nil, errorf(codeNotFound, "%s: no current job", c.Name).WithHint("`jobs` lists the session's tasks")
	case 1:
		tk, ok, err := tt.taskSpec(c.Args[0])
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errorf(codeArg, "%s takes a task or %%N, got %s", c.Name, value.TypeName(c.Args[0]))
		}
		return tk, nil
	}
	return nil, errorf(codeArg, "%s takes at most one job", c.Name)
}

// runFg brings a job to the foreground: resumes it if suspended and waits
// for it (Ctrl-C in the REPL stops the wait, not the job).
func runFg(c *BuiltinCall) (value.Value, error) {
	tk, err := jobArg(c)
	if err != nil {
		return nil, err
	}
	// A job fg waits to its end needs no report of it (jobout.go).
	tk.setForeground(true)
	defer func() { tk.setForeground(tk.isDone()) }()
	if tk.terminalJob() != nil {
		return c.t.foregroundTerminal(tk)
	}
	tk.Resume()
	if tk.out == nil || c.t.task != nil {
		return c.t.await(tk)
	}
	// Its output, kept and to come, goes to the terminal while fg waits,
	// with what it answered: nothing is left to show.
	tk.out.attach(c.t.stdout)
	_, err = c.t.await(tk)
	tk.out.detach()
	if err != nil {
		return nil, err
	}
	return value.Nil, nil
}

// runBg lets a suspended job go on in the background.
func runBg(c *BuiltinCall) (value.Value, error) {
	tk, err := jobArg(c)
	if err != nil {
		return nil, err
	}
	tk.Resume()
	if tk.terminalJob() != nil {
		c.t.jobNotice(tk, "running")
	}
	return value.Nil, nil
}

// taskSpec resolves a job argument: a task value, or `%N` naming task N of
// the session's table. ok is false for anything else.
func (tt *taskTable) taskSpec(v value.Value) (tk *Task, ok bool, err error) {
	switch x := v.(type) {
	case *Task:
		return x, true, nil
	case value.Str:
		s := string(x)
		if !strings.HasPrefix(s, "%") {
			return nil, false, nil
		}
		n, perr := strconv.Atoi(s[1:])
		if perr != nil {
			return nil, false, nil
		}
		tt.mu.Lock()
		defer tt.mu.Unlock()
		for _, tk := range tt.all {
			if tk.JobNumber() == n {
				return tk, true, nil
			}
		}
		return nil, true, errorf(codeNotFound, "no job %s", s).WithHint("`jobs` lists the session's tasks")
	}
	return nil, false, nil
}

// runWait is `wait` (every running task), `wait %N` or `wait (task)`: it
// waits for the tasks and returns the result of the last one named (null
// for a bare wait). A named task's failure is raised, as by await.
func runWait(c *BuiltinCall) (value.Value, error) {
	tt := &c.t.in.tasks
	if len(c.Args) == 0 {
		for _, tk := range tt.list() {
			if tk == c.t.task {
				continue
			}
			if _, err := c.t.await(tk); err != nil {
				if e, ok := err.(*value.Error); ok && e.Code == value.CodeCancelled && c.t.ctx.Err() != nil {
					return nil, err
				}
			}
		}
		return value.Nil, nil
	}
	var last value.Value = value.Nil
	for _, a := range c.Args {
		tk, ok, err := tt.taskSpec(a)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errorf(codeArg, "wait takes tasks or %%N job numbers, got %s", value.TypeName(a))
		}
		if last, err = c.t.await(tk); err != nil {
			return nil, err
		}
	}
	return last, nil
}

// runKill cancels tasks named as values or `%N` (`kill %1`, `kill (job)`);
// any other command line is the kill program's (`kill -TERM 1234`).
func runKill(c *BuiltinCall) (value.Value, error) {
	var tks []*Task
	for _, a := range c.Args {
		tk, ok, err := c.t.in.tasks.taskSpec(a)
		if err != nil {
			return nil, err
		}
		if !ok {
			tks = nil
			break
		}
		tks = append(tks, tk)
	}
	if len(tks) > 0 {
		for _, tk := range tks {
			tk.Cancel()
		}
		return value.Nil, nil
	}
	argv, err := argTexts(c.Args)
	if err != nil {
		return nil, err
	}
	prog, err := c.t.host.LookPath(c.t.ctx, "kill", c.t.env)
	if err != nil {
		if gateStop(err) {
			return nil, hostError(err)
		}
		return nil, errorf(codeNotFound, "kill: no task named and no kill program found")
	}
	return c.t.runExternal("kill", prog, argv, nil, modeValue|mRaise)
}
