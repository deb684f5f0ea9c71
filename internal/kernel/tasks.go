package kernel

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// Task bounds.
const (
	// MaxRunningTasks bounds the unfinished tasks of one session.
	MaxRunningTasks = 64
	// MaxTaskRecords bounds the task records one session keeps; the oldest
	// finished ones are dropped first.
	MaxTaskRecords = 1024
)

// Task states.
const (
	TaskRunning    = "running"
	TaskCancelling = "cancelling"
	TaskCancelled  = "cancelled"
	TaskFailed     = "failed"
	TaskCompleted  = "completed"
)

// task is one background exec.
type task struct {
	n      int
	cancel context.CancelFunc
	done   chan struct{} // closed when the task reaches a terminal state

	mu       sync.Mutex
	state    string
	started  int64
	finished int64
	ref      string
	err      *taskError
}

type taskError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// taskRecord is a task as the protocol shows it.
type taskRecord struct {
	Task       string     `json:"task"`
	Session    string     `json:"session"`
	State      string     `json:"state"`
	StartedNS  int64      `json:"started_ns"`
	FinishedNS *int64     `json:"finished_ns"`
	ResultRef  *string    `json:"result_ref"`
	Error      *taskError `json:"error"`
	TimedOut   bool       `json:"timed_out,omitempty"`
}

func (t *task) record(session string) *taskRecord {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := &taskRecord{Task: taskName(t.n), Session: session, State: t.state, StartedNS: t.started, Error: t.err}
	if t.finished != 0 {
		f := t.finished
		r.FinishedNS = &f
	}
	if t.ref != "" {
		ref := t.ref
		r.ResultRef = &ref
	}
	return r
}

func taskName(n int) string    { return "task:" + strconv.Itoa(n) }
func taskChannel(n int) string { return "task." + strconv.Itoa(n) }

// taskTable holds one session's tasks.
type taskTable struct {
	mu      sync.Mutex
	seq     int
	tasks   map[int]*task
	order   []int // creation order, for eviction
	running int
}

// startTask runs p in the background as a new task of sess. It takes over
// the turn tr.
func (s *Server) startTask(sess *session, p *execParams, tr *turn) (any, error) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		tr.leave()
		return nil, proto.NewError(proto.CodeInternalError, "kernel shutting down", nil)
	}
	s.tasks.Add(1) // under s.mu, so never after Shutdown starts waiting
	s.mu.Unlock()
	tt := &sess.tasks
	tt.mu.Lock()
	if tt.running >= MaxRunningTasks {
		s.tasks.Done()
		tt.mu.Unlock()
		tr.leave()
		return nil, proto.NewError(proto.CodeInternalError, "too many running tasks in this session", nil)
	}
	if tt.tasks == nil {
		tt.tasks = map[int]*task{}
	}
	tt.seq++
	ctx, cancel := context.WithCancel(s.ctx)
	t := &task{n: tt.seq, cancel: cancel, done: make(chan struct{}), state: TaskRunning, started: time.Now().UnixNano()}
	tt.tasks[t.n] = t
	tt.order = append(tt.order, t.n)
	tt.running++
	tt.evictLocked()
	tt.mu.Unlock()

	ch := channelKey{sess.key, taskChannel(t.n)}
	s.bus.publish(ch, map[string]any{"state": TaskRunning, "task": taskName(t.n)})
	go func() {
		defer s.tasks.Done()
		defer cancel()
		_, ref, err := s.runExec(ctx, sess, p, tr)
		t.mu.Lock()
		t.ref = ref
		switch {
		case err == nil:
			t.state = TaskCompleted
		case t.state == TaskCancelling || errors.Is(ctx.Err(), context.Canceled):
			t.state = TaskCancelled
		default:
			t.state = TaskFailed
		}
		if err != nil {
			re := toRPCError(err)
			t.err = &taskError{Code: re.Code, Message: re.Message}
		}
		t.finished = time.Now().UnixNano()
		state := t.state
		t.mu.Unlock()
		tt.mu.Lock()
		tt.running--
		tt.mu.Unlock()
		close(t.done)
		s.bus.publish(ch, map[string]any{"state": state, "task": taskName(t.n), "result_ref": ref})
	}()
	return map[string]any{"task": taskName(t.n), "events": taskChannel(t.n)}, nil
}

// evictLocked drops the oldest finished records beyond MaxTaskRecords.
func (tt *taskTable) evictLocked() {
	for len(tt.order) > MaxTaskRecords {
		dropped := false
		for i, n := range tt.order {
			t := tt.tasks[n]
			select {
			case <-t.done:
				delete(tt.tasks, n)
				tt.order = append(tt.order[:i], tt.order[i+1:]...)
				dropped = true
			default:
				continue
			}
			break
		}
		if !dropped {
			return
		}
	}
}

type taskParams struct {
	Task      *string `json:"task"`
	TimeoutMS *int64  `json:"timeout_ms"`
}

// taskOf resolves the call's task selector within the attached session.
func (c *call) taskOf() (*task, *taskParams, error) {
	var p taskParams
	if err := c.params(&p); err != nil {
		return nil, nil, err
	}
	if p.Task == nil {
		return nil, nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "task" is required`, nil)
	}
	if p.TimeoutMS != nil && (*p.TimeoutMS < 0 || time.Duration(*p.TimeoutMS)*time.Millisecond > maxTimeout) {
		return nil, nil, proto.NewError(proto.CodeInvalidParams, "invalid params: timeout_ms must be between 0 and 86400000", nil)
	}
	unknown := proto.NewError(proto.CodeUnknownTask, "unknown task "+quoteRef(*p.Task), nil)
	rest, ok := strings.CutPrefix(*p.Task, "task:")
	n, err := strconv.Atoi(rest)
	if !ok || err != nil || strconv.Itoa(n) != rest {
		return nil, nil, unknown
	}
	tt := &c.att.sess.tasks
	tt.mu.Lock()
	t := tt.tasks[n]
	tt.mu.Unlock()
	if t == nil {
		return nil, nil, unknown
	}
	return t, &p, nil
}

func handleTaskGet(_ context.Context, c *call) (any, error) {
	t, _, err := c.taskOf()
	if err != nil {
		return nil, err
	}
	return t.record(c.att.sess.key.name), nil
}

func handleTaskList(_ context.Context, c *call) (any, error) {
	var p struct{}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	tt := &c.att.sess.tasks
	tt.mu.Lock()
	ts := make([]*task, 0, len(tt.order))
	for _, n := range tt.order {
		ts = append(ts, tt.tasks[n])
	}
	tt.mu.Unlock()
	recs := make([]*taskRecord, len(ts))
	for i, t := range ts {
		recs[i] = t.record(c.att.sess.key.name)
	}
	return map[string]any{"tasks": recs}, nil
}

func handleTaskAwait(ctx context.Context, c *call) (any, error) {
	t, p, err := c.taskOf()
	if err != nil {
		return nil, err
	}
	var expired <-chan time.Time
	if p.TimeoutMS != nil {
		timer := time.NewTimer(time.Duration(*p.TimeoutMS) * time.Millisecond)
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case <-t.done:
		return t.record(c.att.sess.key.name), nil
	case <-expired:
		r := t.record(c.att.sess.key.name)
		r.TimedOut = true
		return r, nil
	case <-ctx.Done():
		return nil, proto.NewError(proto.CodeInternalError, "await abandoned: "+ctx.Err().Error(), nil)
	}
}

func handleTaskCancel(_ context.Context, c *call) (any, error) {
	t, _, err := c.taskOf()
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if t.state == TaskRunning {
		t.state = TaskCancelling
	}
	t.mu.Unlock()
	t.cancel() // the host kills the task's process group
	return t.record(c.att.sess.key.name), nil
}

func handleTaskControl(_ context.Context, c *call) (any, error) {
	if _, _, err := c.taskOf(); err != nil {
		return nil, err
	}
	return nil, proto.NewError(proto.CodeTaskControlUnavailable, c.req.Method+" is not available: tasks cannot be suspended by this kernel", nil)
}
