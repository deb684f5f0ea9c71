package kernel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	membudget "github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/tasks"
	"github.com/shoalgo/shoal/internal/value"
)

// Names of the kernel's bounds on language tasks (spawn, `cmd &`,
// `{ … } &`, on handlers, parallel branches), as their quota_exceeded
// refusals name them. The session's own bound is eval.BudgetSessionTasks.
const (
	BudgetLangTasks          = "lang_tasks"
	BudgetPrincipalLangTasks = "principal_lang_tasks"
)

// langQuota counts the language tasks running in every session together
// (Limits.LangTasks) and per token principal (Limits.PrincipalLangTasks;
// the kernel owner is bounded only kernel-wide). A task is charged when it
// starts and released when it has finished.
type langQuota struct {
	owner          string // the kernel owner's principal
	limit, perPrin int

	mu     sync.Mutex
	live   int
	byPrin map[string]int
}

func newLangQuota(owner string, l Limits) *langQuota {
	return &langQuota{owner: owner, limit: l.LangTasks, perPrin: l.PrincipalLangTasks, byPrin: map[string]int{}}
}

// charge admits one more task of principal or refuses it with a
// *budget.ExceededError naming the bound it would pass.
func (q *langQuota) charge(principal string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.live >= q.limit {
		return &membudget.ExceededError{Name: BudgetLangTasks, Limit: int64(q.limit), Used: int64(q.live),
			Reason: fmt.Sprintf("the kernel already runs %d language tasks", q.live)}
	}
	if principal != q.owner && q.byPrin[principal] >= q.perPrin {
		return &membudget.ExceededError{Name: BudgetPrincipalLangTasks, Limit: int64(q.perPrin), Used: int64(q.byPrin[principal]),
			Reason: fmt.Sprintf("principal %q already runs %d language tasks", principal, q.byPrin[principal])}
	}
	q.live++
	q.byPrin[principal]++
	return nil
}

func (q *langQuota) release(principal string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.live--
	if q.byPrin[principal]--; q.byPrin[principal] <= 0 {
		delete(q.byPrin, principal)
	}
}

// running reports the language tasks charged now.
func (q *langQuota) running() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.live
}

// langTaskHook is a session's eval.TaskHook: it charges the kernel's
// bounds and registers each language task in the session's task registry,
// the one registry task.list, task.get, task.await and task.cancel read,
// so a spawn's handle is the kernel task "task:N" its value shows. The
// registry entry's work waits for the language task; cancelling the entry
// (task.cancel, the session or kernel closing) cancels the language task.
//
// A task is also bound to the token attachment whose exec started it,
// directly or through the tasks it started: when the attachment is cut
// (its token revoked or expired) the task is cancelled, as the exec's own
// task is (revoke.go).
type langTaskHook struct {
	q         *langQuota
	srv       *Server // for the tasks' output (langoutput.go)
	principal string
	sess      atomic.Pointer[session] // set by wireSession before any exec

	origins sync.Map // *eval.Task -> *attachment, while the task runs
}

// originKey carries, in an exec's context, the attachment it came through.
type originKey struct{}

// withOrigin marks ctx as an exec's through att, when att can be cut.
func withOrigin(ctx context.Context, att *attachment) context.Context {
	if att == nil || att.cut == nil {
		return ctx
	}
	return context.WithValue(ctx, originKey{}, att)
}

// origin is the attachment a new language task answers to: its exec's,
// or its parent task's.
func (h *langTaskHook) origin(ctx context.Context, tk *eval.Task) *attachment {
	if a, ok := ctx.Value(originKey{}).(*attachment); ok {
		return a
	}
	if p := tk.Parent(); p != nil {
		if a, ok := h.origins.Load(p); ok {
			return a.(*attachment)
		}
	}
	return nil
}

// Started implements eval.TaskHook.
func (h *langTaskHook) Started(ctx context.Context, tk *eval.Task) (string, func(), error) {
	if err := h.q.charge(h.principal); err != nil {
		return "", nil, err
	}
	att := h.origin(ctx, tk)
	if att != nil {
		h.origins.Store(tk, att)
	}
	ended := func() {
		h.origins.Delete(tk)
		h.q.release(h.principal)
	}
	sess := h.sess.Load()
	if sess == nil {
		return "", ended, nil
	}
	// A parallel branch, which its parallel call waits for, is listed and
	// cancellable while it runs but not retained after (a foreground
	// task), so a long fan-out does not push exec results out of the
	// session's retained records.
	var out langSink // its output (langoutput.go)
	var t *tasks.Task
	t, err := sess.tasks.StartLanguage(sess.owner(), tk.Desc(), tk.Awaited(), func(ctx context.Context) (any, error) {
		release, _ := tasks.RegisterSuspender(ctx, langSuspender{tk})
		defer release()
		select {
		case <-tk.Done():
		case <-ctx.Done():
			tk.Cancel()
			<-tk.Done()
		}
		out.end(sess, t, tk.Awaited())
		v, err := tk.Result()
		var le *value.Error
		if errors.As(err, &le) && (le.Code == value.CodeCancelled || le.Code == value.CodeTaskCancelled) {
			// Cancelled in the language (kill %N): the record says
			// cancelled, as task.cancel's would.
			return v, fmt.Errorf("%w: %v", tasks.ErrCancelled, err)
		}
		return v, err
	})
	if err != nil {
		ended()
		return "", nil, err // live_tasks: the session's registry is full
	}
	out.attach(h.srv, sess, t, tk)
	att.bindTask(sess, t)
	return t.ID(), ended, nil
}

// langSuspender lets task.suspend and task.resume hold and continue a
// language task (and the processes it runs).
type langSuspender struct{ tk *eval.Task }

func (s langSuspender) Suspend() error { s.tk.Suspend(); return nil }
func (s langSuspender) Resume() error  { s.tk.Resume(); return nil }
