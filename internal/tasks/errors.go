package tasks

import (
	"errors"
	"fmt"

	"github.com/shoalgo/shoal/internal/budget"
)

// Errors returned by the registry; compare with errors.Is.
var (
	// ErrUnknownTask: no task with that id is visible to the caller (it
	// never existed, was evicted, or belongs to another owner).
	ErrUnknownTask = errors.New("unknown task")
	// ErrControlUnavailable: the task cannot be suspended or resumed
	// (it registered no Suspender, or is no longer running).
	ErrControlUnavailable = errors.New("task control unavailable")
	// ErrTooManyTasks: the owner already has MaxLive running tasks (or
	// MaxForeground foreground ones). The error also wraps a
	// *budget.ExceededError naming BudgetLive or BudgetForeground.
	ErrTooManyTasks = errors.New("too many live tasks")
	// ErrClosed: the registry was closed and starts no more work.
	ErrClosed = errors.New("task registry closed")
	// ErrCancelled is the error of a task that ended in state cancelled.
	ErrCancelled = errors.New("task cancelled")
)

// limitError is a start refused because owner already has limit tasks
// of the kind the bound named budget counts: a *budget.ExceededError that
// also matches ErrTooManyTasks.
func limitError(owner Owner, name string, limit int, what string) error {
	return fmt.Errorf("%w: %w", ErrTooManyTasks, &budget.ExceededError{
		Name: name, Limit: int64(limit),
		Reason: fmt.Sprintf("session %q already has %d %s", owner.Session, limit, what),
	})
}

// PanicError is the error of a task whose work panicked.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("task panicked: %v", e.Value) }

func unknown(id string) error { return fmt.Errorf("%w: %q", ErrUnknownTask, id) }
